package messages

import "encoding/json"

// AppendCallToolParams appends the JSON encoding of p to b, exactly as
// json.Marshal would encode it, without reflecting over the struct:
// tools/call is the hot path. The arguments and _meta, whose shapes are the
// caller's, still go through encoding/json.
func AppendCallToolParams(b []byte, p *CallToolParams) ([]byte, error) {
	b = append(b, '{')
	if len(p.Meta) > 0 {
		meta, err := json.Marshal(p.Meta)
		if err != nil {
			return nil, err
		}
		b = append(b, `"_meta":`...)
		b = append(b, meta...)
		b = append(b, ',')
	}
	b = append(b, `"name":`...)
	b = appendString(b, p.Name)
	if p.Arguments != nil {
		args, err := json.Marshal(p.Arguments)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"arguments":`...)
		b = append(b, args...)
	}
	if len(p.InputResponses) > 0 {
		in, err := json.Marshal(p.InputResponses)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"inputResponses":`...)
		b = append(b, in...)
	}
	if p.RequestState != "" {
		b = append(b, `,"requestState":`...)
		b = appendString(b, p.RequestState)
	}
	return append(b, '}'), nil
}
