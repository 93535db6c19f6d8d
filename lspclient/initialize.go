package lspclient

import (
	"maps"
	"os"
	"path/filepath"
)

// defaultSettings are the gopls settings goplsmcp relies on; Options.Settings
// may override them.
func defaultSettings() map[string]any {
	return map[string]any{
		// textDocument/diagnostic gives a synchronous answer for one file.
		"pullDiagnostics": true,
		"semanticTokens":  true,
		// Links in hover text cost tokens and say little to a model.
		"linksInHover": false,
		"hoverKind":    "FullDocumentation",
	}
}

func (c *Client) settings() map[string]any {
	s := defaultSettings()
	maps.Copy(s, c.opts.Settings)
	if !c.opts.AllowNetwork {
		s = offlineSettings(s, userGoflags(append(os.Environ(), c.opts.Env...)))
	}
	c.docs.mu.Lock()
	overlay := c.docs.overlay
	c.docs.mu.Unlock()
	if overlay != "" {
		s = overlaySettings(s, userGoflags(append(os.Environ(), c.opts.Env...)), overlay, c.log)
	}
	return s
}

func (c *Client) workspaceFolders() []map[string]string {
	return []map[string]string{{"uri": FileURI(c.opts.Root), "name": filepath.Base(c.opts.Root)}}
}

// initializeParams declares what this client really does: it accepts
// work-done progress, hierarchical symbols, markdown, code action literals
// and resolution, but never applies edits itself.
func (c *Client) initializeParams() map[string]any {
	symbolKinds := make([]int, 26)
	for i := range symbolKinds {
		symbolKinds[i] = i + 1
	}
	return map[string]any{
		"processId":             os.Getpid(),
		"clientInfo":            map[string]string{"name": "goplsmcp"},
		"rootUri":               FileURI(c.opts.Root),
		"workspaceFolders":      c.workspaceFolders(),
		"initializationOptions": c.settings(),
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
			"window":  map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{
				"applyEdit":              false,
				"workspaceEdit":          map[string]any{"documentChanges": false},
				"configuration":          true,
				"workspaceFolders":       true,
				"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": false},
				"symbol":                 map[string]any{"symbolKind": map[string]any{"valueSet": symbolKinds}},
				"executeCommand":         map[string]any{},
				"didChangeConfiguration": map[string]any{},
			},
			"textDocument": map[string]any{
				"synchronization": map[string]any{"didSave": false},
				"hover":           map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"completion": map[string]any{
					"completionItem": map[string]any{
						"snippetSupport":      false,
						"documentationFormat": []string{"markdown", "plaintext"},
						// The import an item adds (gopls sends it as the
						// description of labelDetails, only when declared).
						"labelDetailsSupport": true,
					},
				},
				"signatureHelp": map[string]any{
					"signatureInformation": map[string]any{
						"documentationFormat":  []string{"markdown", "plaintext"},
						"parameterInformation": map[string]any{"labelOffsetSupport": true},
					},
				},
				"definition":     map[string]any{"linkSupport": false},
				"typeDefinition": map[string]any{"linkSupport": false},
				"implementation": map[string]any{"linkSupport": false},
				"references":     map[string]any{},
				"documentSymbol": map[string]any{
					"hierarchicalDocumentSymbolSupport": true,
					"symbolKind":                        map[string]any{"valueSet": symbolKinds},
				},
				"formatting": map[string]any{},
				"rename":     map[string]any{"prepareSupport": true},
				"codeAction": map[string]any{
					"codeActionLiteralSupport": map[string]any{
						"codeActionKind": map[string]any{"valueSet": []string{
							"quickfix", "refactor", "refactor.extract", "refactor.inline",
							"refactor.rewrite", "source", "source.organizeImports", "source.fixAll",
						}},
					},
					"dataSupport":    true,
					"resolveSupport": map[string]any{"properties": []string{"edit"}},
				},
				"publishDiagnostics": map[string]any{
					"relatedInformation": true,
					"versionSupport":     true,
					"tagSupport":         map[string]any{"valueSet": []int{1, 2}},
					"dataSupport":        true,
				},
				"diagnostic": map[string]any{},
				"semanticTokens": map[string]any{
					"requests":       map[string]any{"full": true, "range": true},
					"tokenTypes":     semanticTokenTypes,
					"tokenModifiers": semanticTokenModifiers,
					"formats":        []string{"relative"},
				},
				"callHierarchy": map[string]any{},
				"typeHierarchy": map[string]any{},
			},
		},
	}
}
