//go:build tools

// Package tools pins CoreDNS (github.com/coredns/coredns), the cluster DNS of the local cluster's
// real node (cluster/real-node/dns.ts): it runs as a program inside the node's network namespace,
// serving Services' names from the API server; go-tool.ts builds it.
package tools

import _ "github.com/coredns/coredns"
