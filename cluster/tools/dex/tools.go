//go:build tools

// Package tools pins Dex (github.com/dexidp/dex/cmd/dex), the OpenID Connect provider the
// sign-in tests start on loopback; go-tool.ts builds the package named in cluster/dex.ts.
package tools

import _ "github.com/dexidp/dex/cmd/dex"
