package main

import (
	"encoding/json"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc/model"
)

// opmValidateError is opm validate's "error" of -o json|yaml (v1.72): {"message": "..."}.
type opmValidateError struct {
	Message string `json:"message"`
}

// validateDoc is validate's JSON/YAML document: olmcat's report with opm's "error" key beside
// its own ("passed" is common to both), so that a script reading opm's output reads olmcat's.
type validateDoc struct {
	Passed   bool              `json:"passed"`
	Error    *opmValidateError `json:"error,omitempty"`
	Errors   int               `json:"errors"`
	Warnings int               `json:"warnings"`
	Info     int               `json:"info,omitempty"`
	Issues   model.Issues      `json:"issues"`
}

// withOpmValidateKeys adds opm's error message to a report that did not pass: the issues that
// fail it (errors; with --strict warnings are errors already), one per line, as the text output
// prints them.
func withOpmValidateKeys(r model.Report) validateDoc {
	doc := validateDoc{Passed: r.Passed, Errors: r.Errors, Warnings: r.Warnings, Info: r.Info, Issues: r.Issues}
	if !r.Passed {
		var lines []string
		for _, i := range r.Issues {
			if i.Severity == model.Error {
				lines = append(lines, i.Error())
			}
		}
		doc.Error = &opmValidateError{Message: strings.Join(lines, "\n")}
	}
	return doc
}

// writeYAMLDoc writes v as YAML, through its JSON form (the keys and omissions of -o json).
func writeYAMLDoc(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(data)
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}
