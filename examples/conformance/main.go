// Command conformance serves every fixture the official MCP conformance
// suite expects, built only on Warden's public SDK (packages tool and mcp):
// the test_* tools, the input-required tools, the tasks-extension tools,
// resources, templates, prompts and completions. scripts/conformance.sh
// starts it and runs the suite against it over HTTP, in both protocol
// eras.
//
//	go run ./examples/conformance --listen 127.0.0.1:8931
package main

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/warden-mcp/warden/mcp"
	"github.com/warden-mcp/warden/tool"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8931", "loopback address to listen on")
	flag.Parse()
	if err := run(*listen); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

func run(listen string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := newServer(logger)
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	h := mcp.NewHTTPHandler(srv, &mcp.HTTPOptions{LoopbackPort: port, Logger: logger})
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		h.Drain()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	fmt.Fprintf(os.Stderr, "conformance fixtures on http://%s/mcp\n", ln.Addr())
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func def(name, desc string) tool.Def {
	return tool.Def{
		Name:        name,
		Description: desc,
		Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
		Catalog:     tool.Catalog{Category: "conformance", Trust: tool.TrustAuto},
	}
}

type none struct{}

// A 1x1 PNG and a short silent WAV, as base64.
const pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

func wavData() string {
	const rate, samples = 8000, 800
	b := make([]byte, 44+samples*2)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+samples*2))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], rate)
	binary.LittleEndian.PutUint32(b[28:], rate*2)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], samples*2)
	return base64.StdEncoding.EncodeToString(b)
}

func text(s string) *tool.Result { return &tool.Result{Content: []tool.Content{tool.Text(s)}} }

// answer is a client's reply to an elicitation.
type answer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
}

func elicitAnswer(raw json.RawMessage) (answer, error) {
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, tool.Errorf("invalid_answer", "the elicitation answer is malformed")
	}
	return a, nil
}

func sampledText(raw json.RawMessage) string {
	var r struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.Content.Text
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

var nameSchema = schema(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)

func newServer(logger *slog.Logger) *mcp.Server {
	reg := tool.NewRegistry()
	srv := mcp.NewServer(reg, &mcp.Options{Name: "warden-conformance", Version: "1.0.0", Logger: logger, Tasks: true})
	addContentTools(reg)
	addStatelessTools(reg, srv)
	addInputTools(reg)
	addLegacyTools(reg)
	addTaskTools(reg)
	addSchemaTools(reg)
	addResources(srv)
	addPrompts(srv)
	return srv
}

func addContentTools(reg *tool.Registry) {
	tool.Add(reg, def("test_simple_text", "Returns a simple text response."),
		func(context.Context, *tool.Call, none) (string, error) {
			return "This is a simple text response for testing.", nil
		})
	tool.Add(reg, def("test_image_content", "Returns an image."),
		func(context.Context, *tool.Call, none) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{tool.Image(pngData, "image/png")}}, nil
		})
	wav := wavData()
	tool.Add(reg, def("test_audio_content", "Returns audio."),
		func(context.Context, *tool.Call, none) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{tool.Audio(wav, "audio/wav")}}, nil
		})
	tool.Add(reg, def("test_embedded_resource", "Returns an embedded resource."),
		func(context.Context, *tool.Call, none) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{
				tool.EmbeddedResource("test://embedded-resource", "text/plain", "This is an embedded resource content."),
			}}, nil
		})
	tool.Add(reg, def("test_multiple_content_types", "Returns text, an image and a resource."),
		func(context.Context, *tool.Call, none) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{
				tool.Text("Multiple content types test:"),
				tool.Image(pngData, "image/png"),
				tool.EmbeddedResource("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
			}}, nil
		})
	tool.Add(reg, def("test_error_handling", "Always returns a tool error."),
		func(context.Context, *tool.Call, none) (*tool.Result, error) {
			return &tool.Result{IsError: true, Content: []tool.Content{tool.Text("This tool intentionally returns an error for testing")}}, nil
		})
	tool.Add(reg, def("test_tool_with_progress", "Reports progress three times."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					select {
					case <-ctx.Done():
						return "", ctx.Err()
					case <-time.After(50 * time.Millisecond):
					}
				}
				c.Progress(p, 100, fmt.Sprintf("step %d of 3", i+1))
			}
			return "Progress complete.", nil
		})
}

func addStatelessTools(reg *tool.Registry, srv *mcp.Server) {
	tool.Add(reg, def("test_missing_capability", "Needs the client's sampling capability."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			if !c.Supports("sampling") {
				return "", &tool.MissingCapabilityError{Capability: "sampling"}
			}
			return "sampling is available", nil
		})
	tool.Add(reg, def("test_streaming_elicitation", "Answers at once and never sends requests on its stream."),
		func(context.Context, *tool.Call, none) (string, error) { return "done", nil })
	tool.Add(reg, def("test_logging_tool", "Logs a message when the client asked for logs."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			c.Log("info", "test_logging_tool ran")
			return "logged", nil
		})
	var tools, prompts atomic.Int64
	tool.Add(reg, def("test_trigger_tool_change", "Adds a tool, so that the tool list changes."),
		func(context.Context, *tool.Call, none) (string, error) {
			n := tools.Add(1)
			name := fmt.Sprintf("test_zz_dynamic_tool_%d", n)
			tool.Add(reg, def(name, "A tool added at run time."), func(context.Context, *tool.Call, none) (string, error) {
				return "dynamic", nil
			})
			return "added " + name, nil
		})
	tool.Add(reg, def("test_trigger_prompt_change", "Adds a prompt, so that the prompt list changes."),
		func(context.Context, *tool.Call, none) (string, error) {
			n := prompts.Add(1)
			name := fmt.Sprintf("test_zz_dynamic_prompt_%d", n)
			srv.AddPrompt(&mcp.Prompt{Name: name, Description: "A prompt added at run time.",
				Get: func(context.Context, *tool.Call, map[string]string) (*mcp.PromptResult, error) {
					return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: tool.Text("dynamic")}}}, nil
				}})
			return "added " + name, nil
		})
}

func addInputTools(reg *tool.Registry) {
	askName := tool.Elicit("What is your name?", nameSchema)
	tool.Add(reg, def("test_input_required_result_elicitation", "Asks the user's name, then greets them."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"user_name": askName})
			if err != nil {
				return "", err
			}
			a, err := elicitAnswer(got["user_name"])
			if err != nil {
				return "", err
			}
			name, _ := a.Content["name"].(string)
			if a.Action != "accept" || name == "" {
				return "The user did not give a name.", nil
			}
			return "Hello, " + name + "!", nil
		})
	tool.Add(reg, def("test_input_required_result_sampling", "Asks the client's model a question."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"capital_question": tool.Sample(100,
				tool.SamplingMessage{Role: "user", Content: tool.Text("What is the capital of France?")})})
			if err != nil {
				return "", err
			}
			return "The model said: " + sampledText(got["capital_question"]), nil
		})
	tool.Add(reg, def("test_input_required_result_list_roots", "Lists the client's roots."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"client_roots": tool.ListRoots()})
			if err != nil {
				return "", err
			}
			return "Roots: " + string(got["client_roots"]), nil
		})
	tool.Add(reg, def("test_input_required_result_request_state", "Asks for confirmation, carrying server state between rounds."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			if c.State() == nil {
				c.SetState([]byte("state-ok"))
			}
			got, err := c.Input(ctx, map[string]tool.InputRequest{"confirm": tool.Elicit("Please confirm",
				schema(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`))})
			if err != nil {
				return "", err
			}
			a, err := elicitAnswer(got["confirm"])
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s: confirmed=%v", c.State(), a.Content["ok"]), nil
		})
	tool.Add(reg, def("test_input_required_result_multiple_inputs", "Asks three questions at once."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{
				"user_name":    askName,
				"greeting":     tool.Sample(50, tool.SamplingMessage{Role: "user", Content: tool.Text("Generate a greeting")}),
				"client_roots": tool.ListRoots(),
			})
			if err != nil {
				return "", err
			}
			a, _ := elicitAnswer(got["user_name"])
			return fmt.Sprintf("name=%v greeting=%q roots=%s", a.Content["name"], sampledText(got["greeting"]), got["client_roots"]), nil
		})
	tool.Add(reg, def("test_input_required_result_multi_round", "Asks two questions, one round each."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"step1": tool.Elicit("Step 1: What is your name?", nameSchema)})
			if err != nil {
				return "", err
			}
			first, _ := elicitAnswer(got["step1"])
			got, err = c.Input(ctx, map[string]tool.InputRequest{"step2": tool.Elicit("Step 2: What is your favorite color?",
				schema(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`))})
			if err != nil {
				return "", err
			}
			second, _ := elicitAnswer(got["step2"])
			return fmt.Sprintf("%v likes %v", first.Content["name"], second.Content["color"]), nil
		})
	tool.Add(reg, def("test_input_required_result_tampered_state", "Asks for confirmation; its request state is integrity-protected."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"confirm": tool.Elicit("Please confirm",
				schema(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`))})
			if err != nil {
				return "", err
			}
			return "confirmed: " + string(got["confirm"]), nil
		})
	tool.Add(reg, def("test_input_required_result_capabilities", "Asks only for what the client declared."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			reqs := map[string]tool.InputRequest{}
			if c.Supports("elicitation") {
				reqs["user_name"] = askName
			}
			if c.Supports("sampling") {
				reqs["capital_question"] = tool.Sample(100, tool.SamplingMessage{Role: "user", Content: tool.Text("What is the capital of France?")})
			}
			if c.Supports("roots") {
				reqs["client_roots"] = tool.ListRoots()
			}
			if len(reqs) == 0 {
				return "The client declared no input capability.", nil
			}
			got, err := c.Input(ctx, reqs)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%d answers", len(got)), nil
		})
}

func addLegacyTools(reg *tool.Registry) {
	tool.Add(reg, def("test_tool_with_logging", "Logs three messages while it works."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			for i, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					time.Sleep(50 * time.Millisecond)
				}
				c.Log("info", m)
			}
			return "Logging complete.", nil
		})
	tool.Add(reg, def("test_reconnection", "Closes its response stream mid-call; the client resumes it and reads the result."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			c.CloseStream()
			if err := sleep(ctx, 100*time.Millisecond); err != nil {
				return "", err
			}
			return "Reconnection test completed successfully.", nil
		})
	type promptArgs struct {
		Prompt string `json:"prompt" desc:"The prompt to send to the client's model"`
	}
	tool.Add(reg, def("test_sampling", "Asks the client's model to complete a prompt."),
		func(ctx context.Context, c *tool.Call, in promptArgs) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"sample": tool.Sample(100,
				tool.SamplingMessage{Role: "user", Content: tool.Text(in.Prompt)})})
			if err != nil {
				return "", err
			}
			return "LLM response: " + sampledText(got["sample"]), nil
		})
	type messageArgs struct {
		Message string `json:"message" desc:"What to ask the user"`
	}
	tool.Add(reg, def("test_elicitation", "Asks the user for their details."),
		func(ctx context.Context, c *tool.Call, in messageArgs) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"info": tool.Elicit(in.Message, schema(
				`{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`))})
			if err != nil {
				return "", err
			}
			return "User response: " + string(got["info"]), nil
		})
	tool.Add(reg, def("test_elicitation_sep1034_defaults", "Asks for values that have defaults."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"defaults": tool.Elicit("Please review your details", schema(
				`{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","default":true}}}`))})
			if err != nil {
				return "", err
			}
			return "Elicitation completed: " + string(got["defaults"]), nil
		})
	tool.Add(reg, def("test_elicitation_sep1330_enums", "Asks for values from enumerations."),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"enums": tool.Elicit("Please choose", schema(
				`{"type":"object","properties":{`+
					`"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},`+
					`"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},`+
					`"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},`+
					`"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},`+
					`"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`))})
			if err != nil {
				return "", err
			}
			return "Elicitation completed: " + string(got["enums"]), nil
		})
}

func taskDef(name, desc string, ts tool.TaskSupport) tool.Def {
	d := def(name, desc)
	d.Tasks = ts
	return d
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func addTaskTools(reg *tool.Registry) {
	type greetArgs struct {
		Name string `json:"name" desc:"Who to greet"`
	}
	tool.Add(reg, def("greet", "Greets someone."),
		func(_ context.Context, _ *tool.Call, in greetArgs) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})
	type computeArgs struct {
		Seconds int    `json:"seconds" min:"0" max:"600" desc:"How long to work"`
		Label   string `json:"label" desc:"A label for the result"`
	}
	tool.Add(reg, taskDef("slow_compute", "Works for a while; runs as a task when the client supports tasks.", tool.TasksOptional),
		func(ctx context.Context, c *tool.Call, in computeArgs) (string, error) {
			c.Detach()
			if err := sleep(ctx, time.Duration(in.Seconds)*time.Second); err != nil {
				return "", err
			}
			return fmt.Sprintf("computed %q after %d s", in.Label, in.Seconds), nil
		})
	tool.Add(reg, taskDef("failing_job", "Runs as a task and ends with a tool error.", tool.TasksRequired),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			c.Detach()
			if err := sleep(ctx, time.Second); err != nil {
				return "", err
			}
			return "", tool.Errorf("job_failed", "the job failed, as it always does")
		})
	tool.Add(reg, taskDef("protocol_error_job", "Runs as a task and fails at the protocol level.", tool.TasksOptional),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			c.Detach()
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return "", err
			}
			return "", &tool.ProtocolError{Code: mcp.CodeInternalError, Message: "the job could not be served"}
		})
	type deleteArgs struct {
		Filename string `json:"filename" desc:"File to delete"`
	}
	confirm := schema(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
	tool.Add(reg, taskDef("confirm_delete", "Asks for confirmation from within a task.", tool.TasksOptional),
		func(ctx context.Context, c *tool.Call, in deleteArgs) (string, error) {
			c.Detach()
			got, err := c.Input(ctx, map[string]tool.InputRequest{"confirm": tool.Elicit("Delete "+in.Filename+"?", confirm)})
			if err != nil {
				return "", err
			}
			a, _ := elicitAnswer(got["confirm"])
			return fmt.Sprintf("delete %s: confirmed=%v (nothing was deleted; this is a fixture)", in.Filename, a.Content["confirm"]), nil
		})
	tool.Add(reg, taskDef("multi_input", "Asks two questions at once from within a task.", tool.TasksOptional),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			c.Detach()
			got, err := c.Input(ctx, map[string]tool.InputRequest{
				"first":  tool.Elicit("First question", schema(`{"type":"object","properties":{"name":{"type":"string"},"confirm":{"type":"boolean"}}}`)),
				"second": tool.Elicit("Second question", schema(`{"type":"object","properties":{"name":{"type":"string"},"confirm":{"type":"boolean"}}}`)),
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("answers: %s %s", got["first"], got["second"]), nil
		})
	tool.Add(reg, taskDef("test_tool_with_task", "Asks a name, then works on it as a task.", tool.TasksRequired),
		func(ctx context.Context, c *tool.Call, _ none) (string, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"user_name": tool.Elicit("What is your name?", nameSchema)})
			if err != nil {
				return "", err
			}
			c.Detach()
			a, _ := elicitAnswer(got["user_name"])
			if err := sleep(ctx, 300*time.Millisecond); err != nil {
				return "", err
			}
			return fmt.Sprintf("Hello, %v, from a task!", a.Content["name"]), nil
		})
}

const jsonSchema202012 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
    }
  },
  "properties": {
    "name": { "type": "string" },
    "address": { "$ref": "#/$defs/address" },
    "contactMethod": { "type": "string", "enum": ["phone", "email"] },
    "phone": { "type": "string" },
    "email": { "type": "string" }
  },
  "allOf": [ { "anyOf": [ { "required": ["phone"] }, { "required": ["email"] } ] } ],
  "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
  "then": { "required": ["phone"] },
  "else": { "required": ["email"] },
  "additionalProperties": false
}`

func addSchemaTools(reg *tool.Registry) {
	tool.AddRaw(reg, def("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features."), json.RawMessage(jsonSchema202012),
		func(_ context.Context, _ *tool.Call, args json.RawMessage) (*tool.Result, error) {
			return text("accepted: " + string(args)), nil
		})
	type headerArgs struct {
		Region string `json:"region,omitempty" header:"Region" desc:"Mirrored into Mcp-Param-Region"`
		Level  int    `json:"level,omitempty" desc:"Not mirrored"`
	}
	tool.Add(reg, def("test_x_mcp_header", "Echoes an argument that is mirrored into a header."),
		func(_ context.Context, _ *tool.Call, in headerArgs) (string, error) {
			return "region=" + in.Region, nil
		})
}

func addResources(srv *mcp.Server) {
	staticText := func(uri, body string) func(context.Context, *tool.Call, string) ([]tool.ResourceContents, error) {
		return func(context.Context, *tool.Call, string) ([]tool.ResourceContents, error) {
			return []tool.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: &body}}, nil
		}
	}
	srv.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource.",
		MIMEType: "text/plain", Read: staticText("test://static-text", "This is the content of the static text resource.")})
	srv.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static PNG image.",
		MIMEType: "image/png", Read: func(context.Context, *tool.Call, string) ([]tool.ResourceContents, error) {
			blob := pngData
			return []tool.ResourceContents{{URI: "test://static-binary", MIMEType: "image/png", Blob: &blob}}, nil
		}})
	srv.AddResource(&mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource clients can subscribe to.",
		MIMEType: "text/plain", Read: staticText("test://watched-resource", "Watched resource content.")})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template",
		Description: "Data for an id.", MIMEType: "application/json",
		Read: func(_ context.Context, _ *tool.Call, uri string, vars map[string]string) ([]tool.ResourceContents, error) {
			b, _ := json.Marshal(map[string]any{"id": vars["id"], "templateTest": true, "data": "Data for ID: " + vars["id"]})
			s := string(b)
			return []tool.ResourceContents{{URI: uri, MIMEType: "application/json", Text: &s}}, nil
		},
		Complete: func(variable, prefix string) []string {
			return mcp.PrefixCompleter("123", "456", "789")(prefix, nil)
		}})
}

func userText(s string) mcp.PromptMessage {
	return mcp.PromptMessage{Role: "user", Content: tool.Text(s)}
}

func addPrompts(srv *mcp.Server) {
	srv.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments.",
		Get: func(context.Context, *tool.Call, map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{userText("This is a simple prompt for testing.")}}, nil
		}})
	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.",
		Arguments: []mcp.PromptArgument{
			{Name: "arg1", Description: "First argument", Required: true, Complete: mcp.PrefixCompleter("test", "testValue1", "value1")},
			{Name: "arg2", Description: "Second argument", Required: true},
		},
		Get: func(_ context.Context, _ *tool.Call, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{
				userText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"])),
			}}, nil
		}})
	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.",
		Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: "The resource to embed", Required: true}},
		Get: func(_ context.Context, _ *tool.Call, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{
				{Role: "user", Content: tool.EmbeddedResource(args["resourceUri"], "text/plain", "Embedded resource content for testing.")},
				userText("Please process the embedded resource above."),
			}}, nil
		}})
	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image.",
		Get: func(context.Context, *tool.Call, map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{
				{Role: "user", Content: tool.Image(pngData, "image/png")},
				userText("Please analyze the image above."),
			}}, nil
		}})
	srv.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks the user for context first.",
		Get: func(ctx context.Context, c *tool.Call, _ map[string]string) (*mcp.PromptResult, error) {
			got, err := c.Input(ctx, map[string]tool.InputRequest{"user_context": tool.Elicit("What context should the prompt use?",
				schema(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`))})
			if err != nil {
				return nil, err
			}
			a, err := elicitAnswer(got["user_context"])
			if err != nil {
				return nil, err
			}
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{userText(fmt.Sprintf("Use this context: %v", a.Content["context"]))}}, nil
		}})
}
