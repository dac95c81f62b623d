package plugin

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PythonKit is the Python kit, one file of the standard library only,
// that `warden plugin new --lang python` writes beside the plugin.
//
//go:embed kit/python/warden_plugin.py
var PythonKit []byte

// PythonKitFile is the kit's file name in a Python plugin's directory.
const PythonKitFile = "warden_plugin.py"

// ScaffoldOptions say what New writes.
type ScaffoldOptions struct {
	// Lang is go, python, rust or c.
	Lang string
	// WardenVersion is the Warden module version a Go plugin requires;
	// "": v0.0.0, with Replace pointing at a checkout.
	WardenVersion string
	// Replace is a local Warden checkout a Go plugin builds against
	// (a replace directive in its go.mod); "": none.
	Replace string
}

// Langs are the languages New writes plugins in.
var Langs = []string{"go", "python", "rust", "c"}

// New writes a working plugin named name into dir (which must not exist
// or be empty): one tool, name_echo, taking text and returning it.
func New(dir, name string, o ScaffoldOptions) error {
	if !pluginNameRE.MatchString(name) {
		return fmt.Errorf("plugin name %q: want 2-32 characters of a-z 0-9 starting with a letter", name)
	}
	files, module, runtime, err := scaffoldFiles(name, o)
	if err != nil {
		return err
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m := map[string]any{
		"name": name, "version": "0.1.0", "description": "The " + name + " plugin.",
		"runtime": runtime, "module": module,
		"tools": []any{map[string]any{
			"name":        name + "_echo",
			"title":       "Echo",
			"description": "Return the text it is given, unchanged.",
			"input_schema": json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text to return.","maxLength":65536}},` +
				`"required":["text"],"additionalProperties":false}`),
			"output_schema": json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`),
			"annotations":   map[string]bool{"read_only": true, "destructive": false, "idempotent": true, "open_world": false},
			"category":      "plugin",
			"trust":         "auto",
			"scope":         "global",
			"capabilities":  []string{},
		}},
	}
	doc := map[string]json.RawMessage{}
	for k, v := range m {
		doc[k], _ = json.Marshal(v)
	}
	manifest, err := marshalManifest(doc)
	if err != nil {
		return err
	}
	files[ManifestFile] = manifest
	for f, b := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func scaffoldFiles(name string, o ScaffoldOptions) (files map[string][]byte, module, runtime string, err error) {
	switch o.Lang {
	case "go":
		ver := o.WardenVersion
		if ver == "" || !strings.HasPrefix(ver, "v") {
			ver = "v0.0.0"
		}
		mod := "module " + name + "\n\ngo 1.24\n\nrequire github.com/warden-mcp/warden " + ver + "\n"
		if o.Replace != "" {
			abs, err := filepath.Abs(o.Replace)
			if err != nil {
				return nil, "", "", err
			}
			mod += "\nreplace github.com/warden-mcp/warden => " + abs + "\n"
		}
		return map[string][]byte{"go.mod": []byte(mod), "main.go": []byte(strings.ReplaceAll(goTemplate, "NAME", name))},
			name + ".wasm", RuntimeWasm, nil
	case "python":
		return map[string][]byte{"plugin.py": []byte(strings.ReplaceAll(pythonTemplate, "NAME", name)), PythonKitFile: PythonKit},
			"plugin.py", RuntimePython, nil
	case "rust":
		return map[string][]byte{"lib.rs": []byte(strings.ReplaceAll(rustTemplate, "NAME", name))}, name + ".wasm", RuntimeWasm, nil
	case "c":
		return map[string][]byte{"plugin.c": []byte(strings.ReplaceAll(cTemplate, "NAME", name))}, name + ".wasm", RuntimeWasm, nil
	}
	return nil, "", "", errors.New("--lang: want go, python, rust or c")
}

const goTemplate = `// Command NAME is a Warden plugin. Build it with ` + "`warden plugin build .`" + `,
// check it with ` + "`warden plugin check .`" + ` and serve it with
// ` + "`warden serve --plugins .`" + `.
package main

import "github.com/warden-mcp/warden/plugin/kit"

type echoArgs struct {
	Text string ` + "`json:\"text\" desc:\"The text to return.\" maxLength:\"65536\"`" + `
}

type echoResult struct {
	Text string ` + "`json:\"text\"`" + `
}

// Tools are registered in init: Warden instantiates the module, which
// runs its initialisers, and never calls main.
func init() {
	kit.Add("NAME_echo", func(c *kit.Call, in echoArgs) (echoResult, error) {
		return echoResult{Text: in.Text}, nil
	})
}

func main() {}
`

const pythonTemplate = `"""NAME: a Warden plugin. Check it with ` + "`warden plugin check .`" + ` and serve it with
` + "`warden serve --plugins .`" + `; after changing a tool's arguments, ` + "`warden plugin build .`" + `
writes their schema into the manifest."""

from dataclasses import dataclass, field

import warden_plugin as wp


@dataclass
class EchoArgs:
    text: str = field(metadata={"description": "The text to return.", "maxLength": 65536})


@dataclass
class EchoResult:
    text: str


@wp.tool("NAME_echo")
def echo(call: wp.Call, args: EchoArgs) -> EchoResult:
    return EchoResult(text=args.text)


if __name__ == "__main__":
    wp.run()
`
