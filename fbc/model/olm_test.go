package model

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestGenerationsParseAndHold(t *testing.T) {
	for in, want := range map[string]Generations{"": BothOLM, "both": BothOLM, "v0": OnlyOLMv0, "V1": OnlyOLMv1} {
		got, err := ParseGenerations(in)
		if err != nil || got != want {
			t.Errorf("ParseGenerations(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseGenerations("v2"); err == nil || !strings.Contains(err.Error(), "v0, v1 or both") {
		t.Errorf("ParseGenerations(v2) = %v; want an error naming the choices", err)
	}
	var zero Options
	if zero.OLM != BothOLM {
		t.Errorf("zero Options.OLM = %v, want both", zero.OLM)
	}

	plain := &Issue{Severity: Warning, Rule: "r", Message: "m"}
	v0 := (&Issue{Severity: Warning, Rule: "r0", Message: "m"}).ForOLM(OLMv0)
	v1 := (&Issue{Severity: Info, Rule: "r1", Message: "m"}).ForOLM(OLMv1)
	both := (&Issue{Severity: Info, Rule: "r01", Message: "m"}).ForOLM(OLMv1, OLMv0)
	all := Issues{plain, v0, v1, both}
	rules := func(is Issues) []string {
		var out []string
		for _, i := range is {
			out = append(out, i.Rule)
		}
		return out
	}
	for g, want := range map[Generations][]string{
		BothOLM:   {"r", "r0", "r1", "r01"},
		OnlyOLMv0: {"r", "r0", "r01"},
		OnlyOLMv1: {"r", "r1", "r01"},
	} {
		if got := rules(all.KeepFor(g)); !slices.Equal(got, want) {
			t.Errorf("KeepFor(%v) = %v, want %v", g, got, want)
		}
	}
	if len(all) != 4 {
		t.Errorf("KeepFor changed its input")
	}

	if got := both.OLMLabel(); got != "OLM v0 and v1" {
		t.Errorf("label = %q", got)
	}
	if got := v0.Error(); got != "warning: m" {
		t.Errorf("Error() = %q", got)
	}
	js, _ := json.Marshal(both)
	if !strings.Contains(string(js), `"olm":["v0","v1"]`) {
		t.Errorf("json = %s; want olm [v0 v1]", js)
	}
	js, _ = json.Marshal(plain)
	if strings.Contains(string(js), `"olm"`) {
		t.Errorf("json = %s; want no olm field", js)
	}
}
