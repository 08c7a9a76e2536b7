package acp

import (
	"context"
	"errors"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// clientFS is the client's file system as a tool.Editor: the file tools
// read the editor's buffers (unsaved changes included) and write through
// it. The workspace has already decided that a path may be used when it
// gets here (tool.WithEditor).
type clientFS struct {
	conn        *sdk.AgentSideConnection
	read, write bool

	mu sync.Mutex
	id sdk.SessionId // set once the session exists
}

func (c *clientFS) setSession(id sdk.SessionId) {
	c.mu.Lock()
	c.id = id
	c.mu.Unlock()
}

func (c *clientFS) session() sdk.SessionId {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id
}

// ReadTextFile implements tool.Editor.
func (c *clientFS) ReadTextFile(ctx context.Context, path string) (string, error) {
	if !c.read {
		return "", errors.ErrUnsupported
	}
	r, err := c.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: c.session(), Path: path})
	if err != nil {
		return "", err
	}
	return r.Content, nil
}

// WriteTextFile implements tool.Editor; a client that offers reading only
// declines (errors.ErrUnsupported), and the workspace writes the file.
func (c *clientFS) WriteTextFile(ctx context.Context, path, content string) error {
	if !c.write {
		return errors.ErrUnsupported
	}
	_, err := c.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: c.session(), Path: path, Content: content})
	return err
}
