package mcp

import (
	"context"
	"encoding/json"
)

// A LogLevel is a syslog severity, as MCP's logging uses them.
type LogLevel int

// Log levels, least severe first.
const (
	LevelDebug LogLevel = iota
	LevelInfo
	LevelNotice
	LevelWarning
	LevelError
	LevelCritical
	LevelAlert
	LevelEmergency
)

var levelNames = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// String returns the level's protocol name.
func (l LogLevel) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "debug"
	}
	return levelNames[l]
}

// ParseLogLevel returns the level of a protocol name.
func ParseLogLevel(name string) (LogLevel, bool) {
	for i, n := range levelNames {
		if n == name {
			return LogLevel(i), true
		}
	}
	return 0, false
}

// Log sends a notifications/message to every ready session whose level is
// level or lower (warning unless the client set it), and to every modern
// request running that asked for messages at level or lower. It never waits for a
// client: a session whose queue is full drops the message. data is any
// JSON value, usually a string; logger names the source.
func (s *Server) Log(level LogLevel, logger string, data any) {
	if str, ok := data.(string); ok {
		data = shortenKeepLines(str, 4000)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for ss := range s.sessions {
		ss.mu.Lock()
		wants := ss.state == stateReady && level >= ss.logLevel
		for ci := range ss.logCalls {
			// A modern request that set a level gets the messages
			// while it runs, on its own stream.
			if level >= ci.logLevel {
				n := &notification{JSONRPC: "2.0", Method: "notifications/message", Params: map[string]any{
					"level": level.String(), "logger": logger, "data": data,
				}}
				ci.queueLog(n)
			}
		}
		ss.mu.Unlock()
		if !wants {
			continue
		}
		n := &notification{JSONRPC: "2.0", Method: "notifications/message", Params: map[string]any{
			"level": level.String(), "logger": logger, "data": data,
		}}
		select {
		case ss.logq <- n:
		default:
			s.log.Debug("client log queue full; message dropped", "session", ss.id)
		}
	}
}

// writeLogs writes queued log notifications until done is closed, then
// writes those still queued.
func (ss *session) writeLogs(done <-chan struct{}) {
	for {
		select {
		case n := <-ss.logq:
			ss.notify(n.Method, n.Params)
		case <-done:
			for {
				select {
				case n := <-ss.logq:
					ss.notify(n.Method, n.Params)
				default:
					return
				}
			}
		}
	}
}

func setLevel(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	var p struct {
		Level json.RawMessage `json:"level"`
	}
	_ = json.Unmarshal(params, &p)
	name, _ := stringValue(p.Level)
	level, ok := ParseLogLevel(name)
	if !ok {
		return nil, InvalidParams("level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	ss.mu.Lock()
	ss.logLevel = level
	ss.mu.Unlock()
	return struct{}{}, nil
}
