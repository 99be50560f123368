package diff

import (
	"fmt"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// compareProblems turns the problems of both sides into findings: a problem only the new side has
// is introduced (breaking when it is an error), an error both have persists (the new catalog still
// cannot be served; a warning both have is left out), one only the old side has is fixed. Problems are matched by rule, place in the catalog and message, not by file and line,
// which move with unrelated edits.
func compareProblems(old, new model.Issues) []Finding {
	key := func(i *model.Issue) string {
		return i.Rule + "\x00" + i.Package + "\x00" + i.Channel + "\x00" + i.Bundle + "\x00" + i.Message
	}
	oldByKey := map[string][]*model.Issue{}
	for _, i := range old {
		oldByKey[key(i)] = append(oldByKey[key(i)], i)
	}
	var out []Finding
	for _, i := range new {
		k := key(i)
		kind := ProblemIntroduced
		var o *model.Issue
		if prev := oldByKey[k]; len(prev) > 0 {
			kind, o = ProblemPersists, prev[0]
			oldByKey[k] = prev[1:]
		}
		f := problemFinding(kind, i)
		f.New = issueLocation(i)
		switch {
		case o != nil && i.Severity != model.Error:
			continue // a warning both sides have is no change
		case o != nil:
			f.Old = issueLocation(o)
		case i.Severity != model.Error:
			f.Severity, f.Rule = Warning, "the new catalog has a warning the old one did not"
		}
		f.Message = fmt.Sprintf("new catalog: %s", issueText(i))
		out = append(out, f)
	}
	for _, i := range old {
		k := key(i)
		if len(oldByKey[k]) == 0 || oldByKey[k][0] != i {
			continue
		}
		oldByKey[k] = oldByKey[k][1:]
		f := problemFinding(ProblemFixed, i)
		f.Old = issueLocation(i)
		f.Message = fmt.Sprintf("old catalog: %s", issueText(i))
		out = append(out, f)
	}
	return out
}

func problemFinding(kind Kind, i *model.Issue) Finding {
	f := newFinding(kind, i.Package, i.Channel, i.Bundle)
	f.Field = i.Rule
	return f
}

func issueLocation(i *model.Issue) string {
	loc := fbc.Location{File: i.File, Line: i.Line}
	if loc.File == "" {
		return string(i.Severity)
	}
	return string(i.Severity) + " at " + loc.String()
}

func issueText(i *model.Issue) string {
	if i.Hint == "" {
		return i.Message
	}
	return i.Message + " (fix: " + i.Hint + ")"
}
