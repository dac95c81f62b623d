package redact

import (
	"bytes"
	"encoding/json"
	"io"
)

// jsonStrings returns every string of a JSON document, member names and
// values, in document order, as encoding/json decodes them: the reference
// the tokenizer and the joint scan are checked against.
func jsonStrings(doc []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var out []string
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if s, ok := t.(string); ok {
			out = append(out, s)
		}
	}
}

// naiveResult is the pass the joint scan replaces: Text on each string of
// the document alone. It returns the spans found in each string.
func naiveResult(r *Redactor, doc []byte) ([][]Span, error) {
	strs, err := jsonStrings(doc)
	if err != nil {
		return nil, err
	}
	out := make([][]Span, len(strs))
	for i, s := range strs {
		_, out[i] = r.Text(s)
	}
	return out, nil
}
