package diff

import (
	"fmt"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// compareProblems turns the problems of both sides into findings: a problem only the new side has
// is introduced (breaking when it is an error), an error both have persists (the new catalog still
// cannot be served; a warning both have is left out), one only the old side has is fixed. Problems
// are matched by rule, place in the catalog and message, not by file and line, which move with
// unrelated edits. Then a problem of each side left over with the same rule, place and severity is
// the same problem in other words (a warning naming the path its bundle now takes): one finding
// quoting both texts, problem-changed for a warning, problem-persists for an error.
func compareProblems(old, new model.Issues) []Finding {
	exact := func(i *model.Issue) string { return subjectKey(i) + "\x00" + i.Message }
	oldByKey := map[string][]*model.Issue{}
	for _, i := range old {
		oldByKey[exact(i)] = append(oldByKey[exact(i)], i)
	}
	matched := map[*model.Issue]*model.Issue{} // new -> old
	var newLeft []*model.Issue
	for _, i := range new {
		k := exact(i)
		if prev := oldByKey[k]; len(prev) > 0 {
			matched[i], oldByKey[k] = prev[0], prev[1:]
			continue
		}
		newLeft = append(newLeft, i)
	}
	// the old problems left over, in their order, by subject
	oldLeft := map[string][]*model.Issue{}
	var oldOrder []*model.Issue
	for _, i := range old {
		k := exact(i)
		if len(oldByKey[k]) == 0 || oldByKey[k][0] != i {
			continue
		}
		oldByKey[k] = oldByKey[k][1:]
		oldOrder = append(oldOrder, i)
		if hasPlace(i) {
			oldLeft[subjectKey(i)] = append(oldLeft[subjectKey(i)], i)
		}
	}
	reworded := map[*model.Issue]bool{} // old problems paired with a new one in other words
	for _, i := range newLeft {
		k := subjectKey(i)
		if prev := oldLeft[k]; hasPlace(i) && len(prev) > 0 {
			matched[i], oldLeft[k] = prev[0], prev[1:]
			reworded[prev[0]] = true
		}
	}

	var out []Finding
	for _, i := range new {
		o := matched[i]
		kind := ProblemIntroduced
		switch {
		case o == nil:
		case i.Severity != model.Error && o.Message == i.Message:
			continue // a warning both sides have is no change
		case i.Severity != model.Error:
			kind = ProblemChanged
		default:
			kind = ProblemPersists
		}
		f := problemFinding(kind, i)
		f.New = issueLocation(i)
		f.Message = fmt.Sprintf("new catalog: %s", issueText(i))
		if o != nil {
			f.Old = issueLocation(o)
			if o.Message != i.Message {
				f.Message += fmt.Sprintf("; the old catalog said: %s", o.Message)
			}
		} else if i.Severity != model.Error {
			f.Severity, f.Rule = Warning, "the new catalog has a warning the old one did not"
		}
		out = append(out, f)
	}
	for _, i := range oldOrder {
		if reworded[i] {
			continue
		}
		f := problemFinding(ProblemFixed, i)
		f.Old = issueLocation(i)
		f.Message = fmt.Sprintf("old catalog: %s", issueText(i))
		out = append(out, f)
	}
	return out
}

// subjectKey is what a problem is about: its rule, severity and place in the catalog (package,
// channel, bundle; for a problem of no package, its file).
func subjectKey(i *model.Issue) string {
	file := ""
	if !hasPlace(i) {
		file = i.File
	}
	return i.Rule + "\x00" + string(i.Severity) + "\x00" + i.Package + "\x00" + i.Channel + "\x00" + i.Bundle + "\x00" + file
}

// hasPlace says whether a problem names a package, channel or bundle: only then is a problem of
// the same rule there, worded otherwise, the same problem (two load errors of one rule in one file
// need not be).
func hasPlace(i *model.Issue) bool { return i.Package != "" || i.Channel != "" || i.Bundle != "" }

func problemFinding(kind Kind, i *model.Issue) Finding {
	f := newFinding(kind, i.Package, i.Channel, i.Bundle)
	f.Field = i.Rule
	f.OLM = i.OLM // the generations validate says the problem holds for
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
