package mcpactor_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/mcpactor/mcpactor"
)

// Every way Manage can find no configuration to run is an ErrConfig, and
// a file that is not there is still fs.ErrNotExist (issue 35, item 8).
func TestManageConfigErrorsMatchErrConfig(t *testing.T) {
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	dir := t.TempDir()

	_, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, ConfigFile: filepath.Join(dir, "missing.json")})
	if !errors.Is(err, mcpactor.ErrConfig) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrConfig and fs.ErrNotExist", err)
	}
	_, err = rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, Discover: &mcpactor.DiscoverOptions{Home: dir, ProjectDir: dir}})
	if !errors.Is(err, mcpactor.ErrConfig) {
		t.Errorf("discovery that finds nothing: %v, want ErrConfig", err)
	}
}
