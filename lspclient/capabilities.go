package lspclient

import "encoding/json"

// SemanticTokensLegend returns the token types and modifiers gopls declared
// in its initialize result. A semantic token's type is an index into types
// and its modifiers a bit set over modifiers; gopls fixes its own legend
// rather than adopting the client's, so only its answer can decode tokens.
// Both are nil when gopls offers no semantic tokens.
func (c *Client) SemanticTokensLegend() (types, modifiers []string) {
	var caps struct {
		SemanticTokensProvider *struct {
			Legend struct {
				TokenTypes     []string `json:"tokenTypes"`
				TokenModifiers []string `json:"tokenModifiers"`
			} `json:"legend"`
		} `json:"semanticTokensProvider"`
	}
	c.mu.Lock()
	raw := c.capabilities
	c.mu.Unlock()
	if json.Unmarshal(raw, &caps) != nil || caps.SemanticTokensProvider == nil {
		return nil, nil
	}
	return caps.SemanticTokensProvider.Legend.TokenTypes, caps.SemanticTokensProvider.Legend.TokenModifiers
}
