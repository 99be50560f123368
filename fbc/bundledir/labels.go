package bundledir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// ParseLabels reads image labels from a file in any of the forms people have at hand: a JSON or
// YAML map of labels, `docker inspect` / `podman inspect` output, an OCI image config, or a
// Dockerfile (its LABEL instructions; variables are not expanded). It returns the labels and the
// form it recognized.
func ParseLabels(data []byte) (map[string]string, string, error) {
	t := bytes.TrimSpace(data)
	switch {
	case len(t) == 0:
		return nil, "", fmt.Errorf("the labels file is empty")
	case t[0] == '[':
		var inspect []struct {
			Config struct {
				Labels map[string]string `json:"Labels"`
			} `json:"Config"`
		}
		if err := json.Unmarshal(t, &inspect); err != nil {
			return nil, "", fmt.Errorf("a JSON list should be `docker inspect` output: %v", err)
		}
		if len(inspect) != 1 {
			return nil, "", fmt.Errorf("`docker inspect` output holds %d images; inspect exactly one", len(inspect))
		}
		return nonNil(inspect[0].Config.Labels), "docker inspect output", nil
	case t[0] == '{':
		var config struct {
			Config *struct {
				Labels map[string]string `json:"Labels"`
			} `json:"config"`
		}
		if json.Unmarshal(t, &config) == nil && config.Config != nil {
			return nonNil(config.Config.Labels), "image config", nil
		}
		var labels map[string]string
		if err := json.Unmarshal(t, &labels); err != nil {
			return nil, "", fmt.Errorf("a JSON object should map label names to string values: %v", err)
		}
		return nonNil(labels), "JSON labels map", nil
	}
	var labels map[string]string
	if err := yaml.Unmarshal(t, &labels); err == nil && labels != nil {
		return labels, "YAML labels map", nil
	}
	labels, err := dockerfileLabels(string(data))
	if err != nil {
		return nil, "", err
	}
	return labels, "Dockerfile", nil
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// dockerfileLabels collects the LABEL instructions of a Dockerfile (later ones win, as in a build).
func dockerfileLabels(text string) (map[string]string, error) {
	labels := map[string]string{}
	sawInstruction := false
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			next := strings.TrimSpace(lines[i])
			if strings.HasPrefix(next, "#") {
				next = ""
			}
			line = strings.TrimSuffix(line, `\`) + " " + next
		}
		word, rest, _ := strings.Cut(line, " ")
		if !isInstruction(word) {
			return nil, fmt.Errorf("not a labels map, image config, inspect output or Dockerfile: line %d starts with %q", lineNo, word)
		}
		sawInstruction = true
		if !strings.EqualFold(word, "LABEL") {
			continue
		}
		if err := parseLabelArgs(strings.TrimSpace(rest), labels); err != nil {
			return nil, fmt.Errorf("Dockerfile line %d: LABEL %v", lineNo, err)
		}
	}
	if !sawInstruction {
		return nil, fmt.Errorf("not a labels map, image config, inspect output or Dockerfile")
	}
	return labels, nil
}

var instructions = []string{"FROM", "LABEL", "COPY", "ADD", "RUN", "CMD", "ENTRYPOINT", "ENV", "ARG", "EXPOSE",
	"USER", "WORKDIR", "VOLUME", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "ONBUILD", "MAINTAINER"}

func isInstruction(w string) bool {
	for _, in := range instructions {
		if strings.EqualFold(w, in) {
			return true
		}
	}
	return false
}

// parseLabelArgs reads key=value pairs (quoted or not), or the legacy "LABEL key value" form.
func parseLabelArgs(s string, into map[string]string) error {
	if s == "" {
		return fmt.Errorf("has no label")
	}
	words, err := splitWords(s)
	if err != nil {
		return err
	}
	if !strings.Contains(words[0].raw, "=") {
		if len(words) < 2 {
			return fmt.Errorf("%q has no value", words[0].text)
		}
		_, value, _ := strings.Cut(s, words[0].raw)
		into[words[0].text] = strings.TrimSpace(value)
		return nil
	}
	for _, w := range words {
		key, value, ok := strings.Cut(w.text, "=")
		if !ok || key == "" {
			return fmt.Errorf("%q is not key=value", w.raw)
		}
		into[key] = value
	}
	return nil
}

type word struct {
	raw    string // as written
	text   string // with quotes removed
	quoted bool
}

// splitWords splits on unquoted whitespace, removing quotes ("..." with backslash escapes,
// '...' literal) anywhere in a word, as Docker's LABEL parser does.
func splitWords(s string) ([]word, error) {
	var out []word
	var cur, raw strings.Builder
	inWord, quoted := false, false
	flush := func() {
		if inWord {
			out = append(out, word{raw: raw.String(), text: cur.String(), quoted: quoted})
		}
		cur.Reset()
		raw.Reset()
		inWord, quoted = false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '"' || c == '\'':
			inWord, quoted = true, true
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if c == '"' && s[j] == '\\' && j+1 < len(s) {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("has an unterminated %c quote", c)
			}
			raw.WriteString(s[i : j+1])
			i = j
		case c == '\\' && i+1 < len(s):
			inWord = true
			cur.WriteByte(s[i+1])
			raw.WriteString(s[i : i+2])
			i++
		default:
			inWord = true
			cur.WriteByte(c)
			raw.WriteByte(c)
		}
	}
	flush()
	if len(out) == 0 {
		return nil, fmt.Errorf("has no label")
	}
	return out, nil
}
