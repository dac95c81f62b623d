package mcp

import (
	"context"
)

const taskExtension = "io.modelcontextprotocol/tasks"

type taskStore struct{}

func newTaskStore() *taskStore { return &taskStore{} }

func (s *Server) taskMethod(ctx context.Context, x *exchange, m *Message, p *params) ([]byte, *Error) {
	return nil, methodNotFound()
}
