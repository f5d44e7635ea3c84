package mcpactor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"sync"

	"github.com/mcpactor/mcpactor/messages"
)

// skillServer is a fake MCP server of the 2026-07-28 era serving skills
// (SEP-2640) over a net.Pipe (ServerConfig.Dial): entries as given, files
// as given, whatever the entries say of them, so that a test can serve a
// file whose size, digest or frontmatter is not its entry's. It records
// every request's method, and the URI of every resources/read.
type skillServer struct {
	skills   []messages.Skill  // served by skills/list and skills/get
	files    map[string]string // uri -> content, served by resources/read
	undecl   bool              // the extension is not declared
	mu       sync.Mutex
	methods  []string
	reads    []string
	listPage int // skills per page of skills/list; 0: one page
}

func (s *skillServer) dial(ctx context.Context) (io.ReadWriteCloser, error) {
	return pipeDial(s.serve)(ctx)
}

// skillParams are the params of a request that skillServer reads.
type skillParams struct {
	URI    string `json:"uri"`
	Cursor string `json:"cursor"`
}

func (s *skillServer) serve(conn net.Conn) {
	serveLines(conn, func(req lineRequest[skillParams]) (map[string]any, map[string]any) {
		s.mu.Lock()
		s.methods = append(s.methods, req.Method)
		if req.Method == messages.MethodResourcesRead {
			s.reads = append(s.reads, req.Params.URI)
		}
		s.mu.Unlock()
		result, rpcErr := s.answer(req.Method, req.Params.URI, req.Params.Cursor)
		if rpcErr == nil {
			result["resultType"] = "complete"
		}
		return result, rpcErr
	})
}

func (s *skillServer) answer(method, uri, cursor string) (map[string]any, map[string]any) {
	switch method {
	case messages.MethodServerDiscover:
		caps := map[string]any{"resources": map[string]any{}}
		if !s.undecl {
			caps["extensions"] = map[string]any{messages.SkillsExtension: map[string]any{}}
		}
		return map[string]any{"supportedVersions": []string{messages.Version20260728}, "capabilities": caps,
			"serverInfo": map[string]any{"name": "skills", "version": "1"}}, nil
	case messages.MethodSkillsList:
		skills, next := s.skills, ""
		if s.listPage > 0 {
			start := 0
			if cursor != "" {
				_ = json.Unmarshal([]byte(cursor), &start)
			}
			end := min(start+s.listPage, len(s.skills))
			skills = s.skills[start:end]
			if end < len(s.skills) {
				b, _ := json.Marshal(end)
				next = string(b)
			}
		}
		res := map[string]any{"skills": skills, "ttlMs": 0, "cacheScope": "private"}
		if next != "" {
			res["nextCursor"] = next
		}
		return res, nil
	case messages.MethodSkillsGet:
		for _, sk := range s.skills {
			if sk.URI == uri {
				return map[string]any{"skill": sk, "ttlMs": 0, "cacheScope": "private"}, nil
			}
		}
		return nil, map[string]any{"code": -32602, "message": "No skill is served at " + uri}
	case messages.MethodResourcesRead:
		text, ok := s.files[uri]
		if !ok {
			return nil, map[string]any{"code": -32602, "message": "Resource not found: " + uri}
		}
		return map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/markdown", "text": text}}}, nil
	}
	return nil, map[string]any{"code": -32601, "message": "Method not found"}
}

// sent returns the methods requested so far, and the URIs read.
func (s *skillServer) sent() (methods, reads []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.methods...), append([]string(nil), s.reads...)
}

// digestOf is the SEP's digest of content: "sha256:" and lowercase hex.
func digestOf(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// skillEntry is an entry for a skill at skill://<path>/SKILL.md whose
// files (relative path -> content, SKILL.md included) are described as
// they are.
func skillEntry(path, name, description string, files map[string]string) messages.Skill {
	root := "skill://" + path
	s := messages.Skill{URI: root + "/SKILL.md", Frontmatter: map[string]any{"name": name, "description": description}, Resources: []messages.SkillResource{}}
	for rel, content := range files {
		s.Resources = append(s.Resources, messages.SkillResource{URI: root + "/" + rel, Digest: digestOf(content), Size: int64(len(content))})
	}
	return s
}
