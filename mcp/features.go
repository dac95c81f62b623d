package mcp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/warden-mcp/warden/tool"
)

// Resource is a document a client can read by URI: a scan report, say.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
	// Read returns the resource's contents. It may ask the client for
	// input through call, like a tool.
	Read func(ctx context.Context, call *tool.Call, uri string) ([]tool.ResourceContents, error) `json:"-"`
}

// ResourceTemplate is a family of resources named by an RFC 6570 level-1
// URI template such as "report://{id}".
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Read returns the contents for a URI that matches the template;
	// vars holds the template's variables. Return ErrResourceNotFound
	// for a URI that names nothing.
	Read func(ctx context.Context, call *tool.Call, uri string, vars map[string]string) ([]tool.ResourceContents, error) `json:"-"`
	// Complete suggests values for a variable, or nil.
	Complete func(variable, prefix string) []string `json:"-"`

	re   *regexp.Regexp
	vars []string
}

// Prompt is a template of messages a user can pick.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	// Get renders the prompt. Missing required arguments are refused
	// before it runs.
	Get func(ctx context.Context, call *tool.Call, args map[string]string) (*PromptResult, error) `json:"-"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// Complete suggests values given a prefix and the other arguments.
	Complete func(prefix string, args map[string]string) []string `json:"-"`
}

// PromptResult is a rendered prompt.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    string       `json:"role"`
	Content tool.Content `json:"content"`
}

// ErrResourceNotFound is returned by a reader for a URI that names
// nothing.
var ErrResourceNotFound = errors.New("resource not found")

type features struct {
	mu        sync.RWMutex
	resources map[string]*Resource
	templates []*ResourceTemplate
	prompts   map[string]*Prompt
}

func (f *features) init() {
	f.resources = map[string]*Resource{}
	f.prompts = map[string]*Prompt{}
}

// completions reports whether anything offers completions. Called with
// f.mu held.
func (f *features) completions() bool {
	for _, p := range f.prompts {
		for _, a := range p.Arguments {
			if a.Complete != nil {
				return true
			}
		}
	}
	for _, t := range f.templates {
		if t.Complete != nil {
			return true
		}
	}
	return false
}

var templateVarRE = regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`)

// AddResource serves a resource. It panics on a duplicate URI or a missing
// reader: registration is eager.
func (s *Server) AddResource(r *Resource) {
	if r.URI == "" || r.Name == "" || r.Read == nil {
		panic("mcp: resource needs a URI, a name and a reader")
	}
	s.features.mu.Lock()
	if _, dup := s.features.resources[r.URI]; dup {
		s.features.mu.Unlock()
		panic(fmt.Sprintf("mcp: resource %s added twice", r.URI))
	}
	s.features.resources[r.URI] = r
	s.features.mu.Unlock()
	s.broadcast(notifyResources, "")
}

// RemoveResource stops serving a resource.
func (s *Server) RemoveResource(uri string) {
	s.features.mu.Lock()
	delete(s.features.resources, uri)
	s.features.mu.Unlock()
	s.broadcast(notifyResources, "")
}

// AddResourceTemplate serves a family of resources.
func (s *Server) AddResourceTemplate(t *ResourceTemplate) {
	if t.URITemplate == "" || t.Name == "" || t.Read == nil {
		panic("mcp: resource template needs a URI template, a name and a reader")
	}
	var pat strings.Builder
	pat.WriteString("^")
	last := 0
	for _, m := range templateVarRE.FindAllStringSubmatchIndex(t.URITemplate, -1) {
		pat.WriteString(regexp.QuoteMeta(t.URITemplate[last:m[0]]))
		pat.WriteString("([^/?#]+)")
		t.vars = append(t.vars, t.URITemplate[m[2]:m[3]])
		last = m[1]
	}
	pat.WriteString(regexp.QuoteMeta(t.URITemplate[last:]))
	pat.WriteString("$")
	t.re = regexp.MustCompile(pat.String())
	s.features.mu.Lock()
	s.features.templates = append(s.features.templates, t)
	s.features.mu.Unlock()
	s.broadcast(notifyResources, "")
}

// AddPrompt serves a prompt. It panics on a duplicate name.
func (s *Server) AddPrompt(p *Prompt) {
	if p.Name == "" || p.Description == "" || p.Get == nil {
		panic("mcp: prompt needs a name, a description and a renderer")
	}
	s.features.mu.Lock()
	if _, dup := s.features.prompts[p.Name]; dup {
		s.features.mu.Unlock()
		panic(fmt.Sprintf("mcp: prompt %s added twice", p.Name))
	}
	s.features.prompts[p.Name] = p
	s.features.mu.Unlock()
	s.broadcast(notifyPrompts, "")
}

// RemovePrompt stops serving a prompt.
func (s *Server) RemovePrompt(name string) {
	s.features.mu.Lock()
	delete(s.features.prompts, name)
	s.features.mu.Unlock()
	s.broadcast(notifyPrompts, "")
}

// NotifyResourceUpdated tells subscribers that a resource changed.
func (s *Server) NotifyResourceUpdated(uri string) { s.broadcast(notifyResourceUpdated, uri) }

func (f *features) sortedResources() []*Resource {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]*Resource, 0, len(f.resources))
	for _, r := range f.resources {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

func (f *features) sortedTemplates() []*ResourceTemplate {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := append([]*ResourceTemplate(nil), f.templates...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].URITemplate < out[j].URITemplate })
	return out
}

func (f *features) sortedPrompts() []*Prompt {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]*Prompt, 0, len(f.prompts))
	for _, p := range f.prompts {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (f *features) hasPrompts() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return len(f.prompts) > 0
}

func (f *features) hasResources() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return len(f.resources) > 0 || len(f.templates) > 0
}

func (f *features) prompt(name string) (*Prompt, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	p, ok := f.prompts[name]
	return p, ok
}

// findResource resolves a URI to a direct resource or a matching template.
func (f *features) findResource(uri string) (*Resource, *ResourceTemplate, map[string]string) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if r, ok := f.resources[uri]; ok {
		return r, nil, nil
	}
	for _, t := range f.templates {
		if m := t.re.FindStringSubmatch(uri); m != nil {
			vars := make(map[string]string, len(t.vars))
			for i, v := range t.vars {
				vars[v] = m[i+1]
			}
			return nil, t, vars
		}
	}
	return nil, nil, nil
}
