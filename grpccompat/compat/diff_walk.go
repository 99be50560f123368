package compat

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// The difference lines (see the package doc) come from a walk over the two messages: fields in
// field-number order, list elements by index, map entries by sorted key, stream messages by
// identity, so the lines are the same from run to run.

// maxLines bounds the lines of one call; the rest are counted.
const maxLines = 40

type differ struct {
	lines []string
	more  int
}

// full reports whether further differences are only counted (so their values need not be
// rendered).
func (d *differ) full() bool { return len(d.lines) >= maxLines }

func (d *differ) add(at, left, right string) {
	if d.full() {
		d.more++
		return
	}
	d.lines = append(d.lines, at+": left "+left+" right "+right)
}

func (d *differ) String() string {
	var b strings.Builder
	for _, l := range d.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if d.more > 0 {
		fmt.Fprintf(&b, "... and %d more differences\n", d.more)
	}
	return b.String()
}

// diffAnswers describes how two answers to the call labelled label differ. Stream messages are
// matched by identity (package/channel/bundle, entry fields, name), so a missing bundle is one
// line, not a shifted list.
func diffAnswers(label string, l, r *Answer, codesOnly bool) string {
	d := &differ{}
	if l.Code != r.Code || (!codesOnly && l.Message != r.Message) {
		d.add(label+" status", statusText(l), statusText(r))
	}
	if !l.stream && !r.stream {
		switch {
		case len(l.Messages) == 1 && len(r.Messages) == 1:
			lb, lok := l.Messages[0].(*api.Bundle)
			rb, rok := r.Messages[0].(*api.Bundle)
			if lok && rok && lb.CsvName != rb.CsvName { // other bundles: their fields are bound to differ
				d.add(label, "bundle "+identity(lb), "bundle "+identity(rb))
				break
			}
			d.message(label, l.Messages[0].ProtoReflect(), r.Messages[0].ProtoReflect())
		case len(l.Messages)+len(r.Messages) > 0:
			d.add(label, responseText(l), responseText(r))
		}
		return d.String()
	}
	lk, rk := indexByKey(l.Messages), indexByKey(r.Messages)
	for _, k := range lk.order {
		d.group(label, lk.byKey[k], rk.byKey[k])
	}
	for _, k := range rk.order {
		if len(lk.byKey[k]) == 0 {
			d.group(label, nil, rk.byKey[k])
		}
	}
	if len(d.lines) == 0 && d.more == 0 && len(l.Messages) == len(r.Messages) {
		d.lines = append(d.lines, label+": same messages in a different order")
	}
	return d.String()
}

// group compares the stream messages of one identity, by position.
func (d *differ) group(label string, lm, rm []proto.Message) {
	n := max(len(lm), len(rm))
	at := func(i int) string {
		var id string
		if i < len(lm) {
			id = identity(lm[i])
		} else {
			id = identity(rm[i])
		}
		if n > 1 {
			id = strings.TrimSpace(id + " #" + strconv.Itoa(i+1))
		}
		if id == "" {
			return label
		}
		return label + "[" + id + "]"
	}
	for i := range n {
		switch {
		case i >= len(rm):
			d.absent(at(i), lm[i].ProtoReflect(), true)
		case i >= len(lm):
			d.absent(at(i), rm[i].ProtoReflect(), false)
		case proto.Equal(lm[i], rm[i]):
		case d.full():
			d.more++
		default:
			d.message(at(i), lm[i].ProtoReflect(), rm[i].ProtoReflect())
		}
	}
}

// absent reports a message present on one side only.
func (d *differ) absent(at string, m protoreflect.Message, onLeft bool) {
	d.absentValue(at, func() string { return messageText(m) }, onLeft)
}

func (d *differ) absentValue(at string, text func() string, onLeft bool) {
	if d.full() {
		d.more++
		return
	}
	if onLeft {
		d.add(at, text(), "(absent)")
	} else {
		d.add(at, "(absent)", text())
	}
}

func (d *differ) message(at string, l, r protoreflect.Message) {
	for _, fd := range fieldsByNumber(l.Descriptor()) {
		path := at + "." + fd.JSONName()
		lh, rh := l.Has(fd), r.Has(fd)
		switch {
		case fd.IsList():
			d.list(path, fd, l.Get(fd).List(), r.Get(fd).List())
		case fd.IsMap():
			d.mapField(path, fd, l.Get(fd).Map(), r.Get(fd).Map())
		case fd.HasPresence() && lh != rh:
			v := l.Get(fd)
			if rh {
				v = r.Get(fd)
			}
			d.absentValue(path, func() string { return valueText(fd, v) }, lh)
		case fd.Message() != nil:
			if lh && rh {
				d.message(path, l.Get(fd).Message(), r.Get(fd).Message())
			}
		default:
			d.scalar(path, fd, l.Get(fd), r.Get(fd))
		}
	}
}

func fieldsByNumber(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	fields := md.Fields()
	out := make([]protoreflect.FieldDescriptor, fields.Len())
	for i := range out {
		out[i] = fields.Get(i)
	}
	slices.SortFunc(out, func(a, b protoreflect.FieldDescriptor) int { return cmp.Compare(a.Number(), b.Number()) })
	return out
}

func (d *differ) list(path string, fd protoreflect.FieldDescriptor, l, r protoreflect.List) {
	eq := func(i, j int) bool { return equalValues(fd, l.Get(i), r.Get(j)) }
	for _, p := range align(l.Len(), r.Len(), eq) {
		at := path + "[" + p.index() + "]"
		switch {
		case p.r < 0:
			d.absentValue(at, func() string { return valueText(fd, l.Get(p.l)) }, true)
		case p.l < 0:
			d.absentValue(at, func() string { return valueText(fd, r.Get(p.r)) }, false)
		case fd.Message() != nil:
			if !eq(p.l, p.r) {
				d.message(at, l.Get(p.l).Message(), r.Get(p.r).Message())
			}
		default:
			d.scalar(at, fd, l.Get(p.l), r.Get(p.r))
		}
	}
}

func (d *differ) mapField(path string, fd protoreflect.FieldDescriptor, l, r protoreflect.Map) {
	var keys []protoreflect.MapKey
	seen := map[any]bool{}
	for _, m := range []protoreflect.Map{l, r} {
		m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
			if !seen[k.Interface()] {
				seen[k.Interface()] = true
				keys = append(keys, k)
			}
			return true
		})
	}
	slices.SortFunc(keys, func(a, b protoreflect.MapKey) int { return strings.Compare(mapKeyText(a), mapKeyText(b)) })
	vd := fd.MapValue()
	for _, k := range keys {
		at := path + "[" + mapKeyText(k) + "]"
		lv, rv := l.Get(k), r.Get(k)
		switch {
		case !l.Has(k):
			d.absentValue(at, func() string { return valueText(vd, rv) }, false)
		case !r.Has(k):
			d.absentValue(at, func() string { return valueText(vd, lv) }, true)
		case vd.Message() != nil:
			if !equalValues(vd, lv, rv) {
				d.message(at, lv.Message(), rv.Message())
			}
		default:
			d.scalar(at, vd, lv, rv)
		}
	}
}

func mapKeyText(k protoreflect.MapKey) string {
	if s, ok := k.Interface().(string); ok {
		return strconv.Quote(s)
	}
	return k.String()
}

func (d *differ) scalar(at string, fd protoreflect.FieldDescriptor, l, r protoreflect.Value) {
	if l.Equal(r) {
		return
	}
	if d.full() {
		d.more++
		return
	}
	if fd.Kind() == protoreflect.StringKind {
		d.text(at, l.String(), r.String())
		return
	}
	d.add(at, valueText(fd, l), valueText(fd, r))
}

func equalValues(fd protoreflect.FieldDescriptor, l, r protoreflect.Value) bool {
	if fd.Message() != nil {
		return proto.Equal(l.Message().Interface(), r.Message().Interface())
	}
	return l.Equal(r)
}
