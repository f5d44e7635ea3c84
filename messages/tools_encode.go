package messages

import "encoding/json"

// AppendCallToolParams appends the JSON encoding of p to b, exactly as
// json.Marshal would encode it, without reflecting over the struct:
// tools/call is the hot path. The arguments and _meta go through
// appendValue, which leaves only shapes other than the generic JSON ones to
// encoding/json.
func AppendCallToolParams(b []byte, p *CallToolParams) ([]byte, error) {
	b = append(b, '{')
	if len(p.Meta) > 0 {
		b = append(b, `"_meta":`...)
		var err error
		if b, err = appendObject(b, p.Meta); err != nil {
			return nil, err
		}
		b = append(b, ',')
	}
	b = append(b, `"name":`...)
	b = appendString(b, p.Name)
	if p.Arguments != nil {
		b = append(b, `,"arguments":`...)
		var err error
		if b, err = appendValue(b, p.Arguments); err != nil {
			return nil, err
		}
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
