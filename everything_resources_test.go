package mcpactor_test

// server-everything's resources
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources):
// listing, templates, reading, subscriptions and the resources a tool
// registers for the session.

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// TestServerEverythingResources lists the static documents through
// ListResources and the Resources iterator, and reads the instructions
// document.
func TestServerEverythingResources(t *testing.T) {
	checkEverythingResources(t, everything.use(t).c)
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

// TestServerEverythingResourceTemplates lists the dynamic resource
// templates.
func TestServerEverythingResourceTemplates(t *testing.T) {
	checkEverythingResourceTemplates(t, everything.use(t).c)
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

// TestServerEverythingReadResource reads a text and a blob resource, and a
// missing one (a JSON-RPC error).
func TestServerEverythingReadResource(t *testing.T) {
	checkEverythingReadResource(t, everything.use(t).c)
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
	var rpcErr *messages.RPCError
	if !errors.As(err, &rpcErr) {
		t.Errorf("read of a missing resource: err = %v, want an RPCError", err)
	}
}

// TestServerEverythingSubscribe subscribes to a resource and receives its
// updates. It has a server of its own: subscriptions and the update toggle
// are the session's state.
func TestServerEverythingSubscribe(t *testing.T) {
	t.Parallel()
	f := ownPeer(t, everythingPlainSpec(t))
	checkEverythingSubscribe(t, f.c, f.rec)
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

// TestServerEverythingSessionResource has a tool register a resource for the
// session: the list changes, and the new resource reads back as gzip.
func TestServerEverythingSessionResource(t *testing.T) {
	f := everything.use(t)
	checkEverythingSessionResource(t, f.c, f.rec)
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
