// Command promql-names reads PromQL expressions the way Prometheus does, with
// its own parser (github.com/prometheus/prometheus/promql/parser, the module
// promtool and prometheus are built from, test/prometheus/build.sh):
//
//	promql-names < expressions.json > results.json
//
// stdin is a JSON array of expressions; stdout is a JSON array with one result
// per expression: {"metrics": [...]} naming every metric its selectors read,
// sorted, or {"error": ...} when Prometheus would refuse it. A selector that
// names no metric (only labels) is reported as the name "".
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

type result struct {
	Metrics []string `json:"metrics,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// metricNames is every metric name the expression's selectors match exactly.
func metricNames(expr parser.Expr) []string {
	seen := map[string]bool{}
	for _, matchers := range parser.ExtractSelectors(expr) {
		name := ""
		for _, m := range matchers {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				name = m.Value
			}
		}
		seen[name] = true
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func run() error {
	var exprs []string
	if err := json.NewDecoder(os.Stdin).Decode(&exprs); err != nil {
		return fmt.Errorf("stdin is not a JSON array of strings: %w", err)
	}
	p := parser.NewParser(parser.Options{})
	results := make([]result, len(exprs))
	for i, text := range exprs {
		expr, err := p.ParseExpr(text)
		if err != nil {
			results[i] = result{Error: err.Error()}
			continue
		}
		results[i] = result{Metrics: metricNames(expr)}
	}
	return json.NewEncoder(os.Stdout).Encode(results)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "promql-names:", err)
		os.Exit(1)
	}
}
