"""binjapy: two of the Binary Ninja MCP guide's example tools as a Warden plugin in Python.

Serve it with `warden serve --plugins DIR --plugin-grant binjapy=view`; warden_plugin.py is the
kit `warden plugin new --lang python` writes (one file, standard library only).
"""

from dataclasses import dataclass, field
from typing import List

import warden_plugin as wp


@dataclass
class CountArgs:
    query: str = field(default="", metadata={"description": "Count only functions whose name contains this text.", "maxLength": 256})


@dataclass
class CountResult:
    functions: int = field(metadata={"description": "How many functions the view has (matching query, when given)."})


@wp.tool("binjapy_count_functions")
def count_functions(call: wp.Call, args: CountArgs) -> CountResult:
    req = {"limit": 1}
    if args.query:
        req["query"] = args.query
    page = call.view("functions", **req)
    return CountResult(functions=page["total"])


@dataclass
class FindArgs:
    query: str = field(metadata={"description": "Text the strings must contain (case-insensitive).", "minLength": 1, "maxLength": 256})
    limit: int = field(default=20, metadata={"description": "At most this many strings.", "minimum": 1, "maximum": 200})


@dataclass
class Found:
    address: str
    section: str
    text: str


@dataclass
class FindResult:
    strings: List[Found]
    total: int


@wp.tool("binjapy_find_strings")
def find_strings(call: wp.Call, args: FindArgs) -> FindResult:
    page = call.view("strings", query=args.query, limit=args.limit, preview_bytes=256)
    found = [Found(address=i["address"], section=i.get("section", ""), text=i.get("text", "")) for i in page.get("items", [])]
    return FindResult(strings=found, total=page.get("total", 0))


if __name__ == "__main__":
    wp.run()
