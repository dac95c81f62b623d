"""The Python kit for Warden plugins: one file, Python's standard library only.

A tool is a function taking a Call and a dataclass of arguments and returning a
dataclass (structured content) or a string; the input and output schemas are
derived from the dataclasses' type hints:

    from dataclasses import dataclass, field
    import warden_plugin as wp

    @dataclass
    class EchoArgs:
        text: str = field(metadata={"description": "The text to return."})

    @dataclass
    class EchoResult:
        text: str

    @wp.tool("mine_echo")
    def echo(call: wp.Call, args: EchoArgs) -> EchoResult:
        return EchoResult(text=args.text)

    if __name__ == "__main__":
        wp.run()

Warden runs the file as a child process for each call and speaks JSON lines
over its standard input and output (docs/plugins.md); `python3 plugin.py
--describe` prints the tools' schemas, which `warden plugin build` writes into
the manifest. Print diagnostics with print(): the kit sends them to standard
error, which the server logs.
"""

import dataclasses
import json
import sys
import typing

__all__ = ["Call", "ToolError", "tool", "run", "describe"]

_tools = {}
_proto_out = sys.stdout


class ToolError(Exception):
    """A failure the model should see: a stable snake_case code and a short message."""

    def __init__(self, code, message):
        super().__init__(code + ": " + message)
        self.code = code
        self.message = message


def tool(name):
    """Register the decorated function as the tool `name` (the manifest's name for it)."""

    def register(fn):
        hints = typing.get_type_hints(fn)
        params = [p for p in fn.__code__.co_varnames[: fn.__code__.co_argcount]]
        if len(params) != 2:
            raise TypeError("tool %s: the handler takes (call, args)" % name)
        args_type = hints.get(params[1])
        if args_type is None or not dataclasses.is_dataclass(args_type):
            raise TypeError("tool %s: annotate the arguments with a dataclass" % name)
        if name in _tools:
            raise ValueError("tool %s registered twice" % name)
        _tools[name] = (fn, args_type, hints.get("return"))
        return fn

    return register


def _schema(tp):
    origin = typing.get_origin(tp)
    targs = typing.get_args(tp)
    if origin is typing.Union and type(None) in targs:
        rest = [a for a in targs if a is not type(None)]
        return _schema(rest[0]) if len(rest) == 1 else {}
    if tp is str:
        return {"type": "string"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if origin in (list, typing.List):
        return {"type": "array", "items": _schema(targs[0]) if targs else {}}
    if dataclasses.is_dataclass(tp):
        return _object_schema(tp)
    raise TypeError("no schema for %r: use str, int, float, bool, list, Optional or a dataclass" % (tp,))


def _object_schema(cls):
    hints = typing.get_type_hints(cls)
    props, required = {}, []
    for f in dataclasses.fields(cls):
        s = dict(_schema(hints[f.name]))
        for k, v in f.metadata.items():
            s[k] = v
        if f.default is not dataclasses.MISSING:
            if f.default is not None:
                s["default"] = f.default
        elif f.default_factory is dataclasses.MISSING:
            required.append(f.name)
        props[f.name] = s
    out = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = required
    return out


def describe():
    """The tools' schemas, as `warden plugin build` writes them into the manifest."""
    out = []
    for name in sorted(_tools):
        _, args_type, ret = _tools[name]
        d = {"name": name, "input_schema": _object_schema(args_type)}
        if ret is not None and dataclasses.is_dataclass(ret):
            d["output_schema"] = _object_schema(ret)
        out.append(d)
    return out


class Call:
    """One tool call: the host functions the operator granted the plugin."""

    def __init__(self, inp, out):
        self._in, self._out = inp, out

    def _host(self, op, request):
        _send(self._out, {"type": "host", "op": op, "request": request})
        line = self._in.readline()
        if not line:
            raise ToolError("host_gone", "the host closed the call")
        reply = json.loads(line).get("reply", {})
        if "error" in reply:
            e = reply["error"]
            raise ToolError(e.get("code", "host_error"), e.get("message", ""))
        return reply.get("ok")

    def log(self, level, message):
        """Send a log message to the client (capability log)."""
        self._host("log", {"level": level, "message": message})

    def warn(self, code, message):
        """Attach a warning to the result (capability log)."""
        self._host("warn", {"code": code, "message": message})

    def progress(self, progress, total=0, message=""):
        """Report progress (capability progress)."""
        self._host("progress", {"progress": progress, "total": total, "message": message})

    def cancelled(self):
        """Whether the call was cancelled or ran out of time."""
        return bool(self._host("cancelled", {}).get("cancelled"))

    def view(self, op, **request):
        """Read the active view (capability view): op is a bininspect_ tool without the prefix."""
        return self._host("view." + op, request)

    def annotate(self, op, **request):
        """Write to the active view (capability annotate): comment_set, comment_delete, symbol_rename."""
        return self._host("annotate." + op, request)

    def http(self, **request):
        """Send one HTTP request through Warden's SSRF-safe client (capability http)."""
        return self._host("http.request", request)


def _send(out, msg):
    out.write(json.dumps(msg, separators=(",", ":")) + "\n")
    out.flush()


def _value(v):
    if dataclasses.is_dataclass(v):
        return dataclasses.asdict(v)
    return v


def run():
    """Serve one call from standard input, or print the schemas with --describe."""
    out = _proto_out
    sys.stdout = sys.stderr  # the handler's prints must not break the protocol
    if "--describe" in sys.argv[1:]:
        out.write(json.dumps(describe()) + "\n")
        return
    line = sys.stdin.readline()
    if not line:
        return
    msg = json.loads(line)
    entry = _tools.get(msg.get("tool"))
    if entry is None:
        _send(out, {"type": "result", "error": {"code": "unknown_tool", "message": "this plugin has no such tool"}})
        return
    fn, args_type, _ = entry
    try:
        names = {f.name for f in dataclasses.fields(args_type)}
        args = args_type(**{k: v for k, v in (msg.get("arguments") or {}).items() if k in names})
        result = fn(Call(sys.stdin, out), args)
        _send(out, {"type": "result", "result": _value(result)})
    except ToolError as e:
        _send(out, {"type": "result", "error": {"code": e.code, "message": e.message}})
    except Exception as e:  # noqa: BLE001 - the host reports it as this call's failure
        print("tool %s raised %s: %s" % (msg.get("tool"), type(e).__name__, e), file=sys.stderr)
        _send(out, {"type": "result", "error": {"code": "plugin_failed", "message": "the tool raised " + type(e).__name__}})
