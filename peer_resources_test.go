package mcpactor_test

// Resources against the independent peers, one row per peer and
// transport (peer_rows_test.go).

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// TestResources lists the resources (ListResources and the Resources
// iterator) and reads them: server-everything's static documents, the
// go-sdk server's templates and its text, blob and templated resources
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources).
func TestResources(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		if p.peer == everythingServer {
			checkEverythingResources(t, p.c)
			return
		}
		checkGoSDKResources(t, p.c)
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
}

// checkEverythingResources lists server-everything's static documents
// (ListResources and the Resources iterator) and reads the instructions
// document.
func checkEverythingResources(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	resources, err := c.ListResources(ctx)
	uris := listedNames(t, "ListResources", resources, err, resourceURI)
	for _, doc := range everythingDocs {
		uri := "demo://resource/static/document/" + doc
		i := slices.Index(uris, uri)
		if i < 0 {
			t.Errorf("resources/list lacks %s", uri)
			continue
		}
		if r := resources[i]; r.Name != doc || r.MimeType != "text/markdown" {
			t.Errorf("%s: name %q mimeType %q", uri, r.Name, r.MimeType)
		}
	}
	checkIterator(t, "Resources", c.Resources(ctx), resourceURI, uris)

	// The instructions are served as a document too.
	rr, err := c.ReadResource(ctx, "demo://resource/static/document/instructions.md")
	if err != nil {
		t.Fatalf("ReadResource(instructions.md): %v", err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].IsBlob() || rr.Contents[0].MimeType != "text/markdown" {
		t.Fatalf("instructions.md contents = %+v", rr.Contents)
	}
	if got := rr.Contents[0].Text; got == "" || got != c.Instructions() {
		t.Errorf("instructions.md (%d bytes) differs from Instructions() (%d bytes)", len(got), len(c.Instructions()))
	}
}

// checkGoSDKResources lists the go-sdk server's resources and templates
// and reads a text, a blob and a templated resource.
func checkGoSDKResources(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	resources, err := c.ListResources(ctx)
	uris := listedNames(t, "ListResources", resources, err, resourceURI)
	checkListed(t, "resources/list", uris, []string{"test://static-text", "test://static-binary", "test://watched-resource"})
	templates, err := c.ListResourceTemplates(ctx)
	if err != nil {
		t.Fatalf("ListResourceTemplates: %v", err)
	}
	if len(templates) != 1 || templates[0].URITemplate != "test://template/{id}/data" {
		t.Errorf("templates = %+v", templates)
	}

	rr, err := c.ReadResource(ctx, "test://static-text")
	if err != nil {
		t.Fatalf("read static-text: %v", err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].IsBlob() || rr.Contents[0].Text != "This is the content of the static text resource." {
		t.Errorf("static-text = %+v", rr.Contents)
	}
	rr, err = c.ReadResource(ctx, "test://static-binary")
	if err != nil {
		t.Fatalf("read static-binary: %v", err)
	}
	if len(rr.Contents) != 1 || !rr.Contents[0].IsBlob() || rr.Contents[0].MimeType != "image/png" {
		t.Fatalf("static-binary = %+v", rr.Contents)
	}
	if data, err := rr.Contents[0].Bytes(); err != nil || !bytes.HasPrefix(data, []byte(pngSignature)) {
		t.Errorf("static-binary bytes % x (%v), want PNG", data, err)
	}
	rr, err = c.ReadResource(ctx, "test://template/42/data")
	if err != nil {
		t.Fatalf("read template: %v", err)
	}
	var doc struct {
		ID           string `json:"id"`
		TemplateTest bool   `json:"templateTest"`
	}
	if len(rr.Contents) != 1 || json.Unmarshal([]byte(rr.Contents[0].Text), &doc) != nil || doc.ID != "42" || !doc.TemplateTest {
		t.Errorf("template resource = %+v", rr.Contents)
	}
}

// TestResourceTemplates lists server-everything's resource templates.
func TestResourceTemplates(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) { checkEverythingResourceTemplates(t, p.c) }, everythingStdio, everythingStreamable, everythingSSE)
}

// checkEverythingResourceTemplates lists server-everything's dynamic
// resource templates.
func checkEverythingResourceTemplates(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	templates, err := c.ListResourceTemplates(waitCtx(t))
	if err != nil {
		t.Fatalf("ListResourceTemplates: %v", err)
	}
	got := keysOf(templates, templateURI)
	for _, want := range []string{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"} {
		if !slices.Contains(got, want) {
			t.Errorf("templates %v lack %s", got, want)
		}
	}
}

// TestReadResource reads a text, a blob, a missing resource, and the
// instructions document of server-everything.
func TestReadResource(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) { checkEverythingReadResource(t, p.c) }, everythingStdio, everythingStreamable, everythingSSE)
}

// checkEverythingReadResource reads a text and a blob resource of
// server-everything, and a missing one.
func checkEverythingReadResource(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	rr, err := c.ReadResource(ctx, "demo://resource/dynamic/text/3")
	if err != nil {
		t.Fatalf("read text: %v", err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].IsBlob() ||
		rr.Contents[0].URI != "demo://resource/dynamic/text/3" ||
		!strings.HasPrefix(rr.Contents[0].Text, "Resource 3: This is a plaintext resource") {
		t.Errorf("text resource = %+v", rr.Contents)
	}
	rr, err = c.ReadResource(ctx, "demo://resource/dynamic/blob/8")
	if err != nil {
		t.Fatalf("read blob: %v", err)
	}
	if len(rr.Contents) != 1 || !rr.Contents[0].IsBlob() {
		t.Fatalf("blob resource = %+v", rr.Contents)
	}
	data, err := rr.Contents[0].Bytes()
	if err != nil || !strings.HasPrefix(string(data), "Resource 8: This is a base64 blob") {
		t.Errorf("blob decodes to %q (%v)", data, err)
	}
	// A resource that does not exist is a JSON-RPC error.
	_, err = c.ReadResource(ctx, "demo://resource/dynamic/text/0")
	var rpcErr *mcpactor.RPCError
	if !errors.As(err, &rpcErr) {
		t.Errorf("read of a missing resource: err = %v, want an RPCError", err)
	}
}

// TestSubscribe subscribes to a resource and receives its updates, each
// row on a connection of its own: subscriptions are the session's. Over
// HTTP the wire shows one subscribe and one unsubscribe
// (server-everything), and the go-sdk server's update (every 3 s) comes on
// the GET listener: it belongs to no request.
func TestSubscribe(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		switch {
		case p.peer == everythingServer && h == nil:
			checkEverythingSubscribe(t, p.c, p.rec)
		case p.peer == everythingServer:
			checkEverythingSubscribe(t, h.c, h.rec)
			exs := h.wire()
			if len(postsOf(exs, messages.MethodResourcesSubscribe)) != 1 || len(postsOf(exs, messages.MethodResourcesUnsubscribe)) != 1 {
				t.Errorf("want one subscribe and one unsubscribe on the wire:\n%s", dumpExchanges(exs))
			}

		case h == nil:
			checkGoSDKSubscribe(t, p.c, p.rec)
		default:
			checkGoSDKSubscribe(t, h.c, h.rec)
			var onListener bool
			for _, ex := range h.wire() {
				if _, ok := ex.carries(messages.NotificationResourcesUpdated); ok && ex.Method == http.MethodGet {
					onListener = true
				}
			}
			if !onListener {
				t.Errorf("resources/updated did not come on the GET listener:\n%s", dumpExchanges(h.wire()))
			}

		}
	}, everythingStdio.own(true), everythingStreamable.own(true), everythingSSE.own(true), gosdkStdio.own(false), gosdkHTTP.own(true))
}

// checkEverythingSubscribe subscribes to a resource of server-everything,
// has the server update it, and receives the update in rec; then
// unsubscribes. It changes the session's state.
func checkEverythingSubscribe(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	ctx := waitCtx(t)
	const uri = "demo://resource/dynamic/text/1"
	if err := c.Subscribe(ctx, uri); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	mark := rec.notes.mark()
	if text := resultText(callOK(t, c, "toggle-subscriber-updates", nil)); !strings.HasPrefix(text, "Started") {
		t.Fatalf("toggle-subscriber-updates = %q", text)
	}
	n := rec.notes.waitAfter(t, mark, messages.NotificationResourcesUpdated, isMethod(messages.NotificationResourcesUpdated))
	var p messages.ResourceUpdatedParams
	if err := json.Unmarshal(n.Params, &p); err != nil || p.URI != uri {
		t.Errorf("resources/updated params %s (%v), want uri %s", n.Params, err, uri)
	}
	if err := c.Unsubscribe(ctx, uri); err != nil {
		t.Fatalf("Unsubscribe: %v", err)
	}
	if text := resultText(callOK(t, c, "toggle-subscriber-updates", nil)); !strings.HasPrefix(text, "Stopped") {
		t.Errorf("second toggle-subscriber-updates = %q", text)
	}
}

// checkGoSDKSubscribe subscribes to the resource the go-sdk server updates
// every 3 s, receives an update in rec, and unsubscribes. It changes the
// session's state.
func checkGoSDKSubscribe(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	ctx := waitCtx(t)
	const uri = "test://watched-resource"
	mark := rec.notes.mark()
	if err := c.Subscribe(ctx, uri); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	// The server updates the resource every 3 s.
	n := rec.notes.waitAfter(t, mark, messages.NotificationResourcesUpdated, isMethod(messages.NotificationResourcesUpdated))
	var p messages.ResourceUpdatedParams
	if err := json.Unmarshal(n.Params, &p); err != nil || p.URI != uri {
		t.Errorf("resources/updated params %s (%v)", n.Params, err)
	}
	if err := c.Unsubscribe(ctx, uri); err != nil {
		t.Errorf("Unsubscribe: %v", err)
	}
}

// TestSessionResource has server-everything make a resource of the
// session (gzip-file-as-resource) and reads it.
func TestSessionResource(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) { checkEverythingSessionResource(t, p.c, p.rec) }, everythingStdio, everythingStreamable, everythingSSE)
}

// checkEverythingSessionResource has server-everything register a gzip
// resource for the session: resources/list_changed reaches rec, and the
// resource is listed and reads back.
func checkEverythingSessionResource(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	ctx := waitCtx(t)
	const original = "mcpactor compresses nothing itself, the server does.\n"
	dataURI := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(original))
	mark := rec.notes.mark()
	res := callOK(t, c, "gzip-file-as-resource", map[string]any{"name": "mcpactor.txt.gz", "data": dataURI, "outputType": "resourceLink"})
	if len(res.Content) != 1 || res.Content[0].Type != messages.ContentTypeResourceLink {
		t.Fatalf("content = %+v, want one resource_link", res.Content)
	}
	link := res.Content[0].ResourceLink()
	if link.URI != "demo://resource/session/mcpactor.txt.gz" || link.MimeType != "application/gzip" {
		t.Errorf("link = %+v", link)
	}
	// Registering it changed the resource list.
	rec.notes.waitAfter(t, mark, messages.NotificationResourcesListChanged, isMethod(messages.NotificationResourcesListChanged))
	resources, err := c.ListResources(ctx)
	if err != nil {
		t.Fatalf("ListResources: %v", err)
	}
	if !slices.ContainsFunc(resources, func(r messages.Resource) bool { return r.URI == link.URI }) {
		t.Errorf("resources/list lacks %s", link.URI)
	}
	rr, err := c.ReadResource(ctx, link.URI)
	if err != nil {
		t.Fatalf("ReadResource(%s): %v", link.URI, err)
	}
	if len(rr.Contents) != 1 || !rr.Contents[0].IsBlob() {
		t.Fatalf("contents = %+v, want one blob", rr.Contents)
	}
	gz, err := rr.Contents[0].Bytes()
	if err != nil {
		t.Fatalf("blob: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("blob is not gzip: %v", err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || string(plain) != original {
		t.Errorf("gunzipped blob = %q (%v), want %q", plain, err, original)
	}
}
