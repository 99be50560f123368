package compat

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// identity names a stream message for a person ("" for a message known by its content only).
func identity(m proto.Message) string {
	k := messageKey(m)
	if k == "" {
		return ""
	}
	parts := strings.Split(k, "\x00")
	if len(parts) == 4 { // a channel entry
		id := strings.Join(parts[:3], "/")
		if parts[3] != "" {
			id += " replaces " + parts[3]
		}
		return printable(id)
	}
	return printable(strings.Join(parts, "/"))
}

// callLabel names a call: the method's short name with the request's fields in field-number
// order, trailing empty ones left out: GetBundle(etcd, alpha, etcdoperator.v0.9.2).
func callLabel(c *Call, req proto.Message) string {
	name := shortMethod(c.Method)
	if req == nil {
		return name + compactRequest(c.Request)
	}
	fields := fieldsByNumber(req.ProtoReflect().Descriptor())
	if len(fields) == 0 {
		return name
	}
	var args []string
	last := 0
	for _, fd := range fields {
		v := req.ProtoReflect().Get(fd)
		var s string
		if fd.Kind() == protoreflect.StringKind {
			s = argText(v.String())
		} else {
			s = valueText(fd, v)
		}
		args = append(args, s)
		if req.ProtoReflect().Has(fd) {
			last = len(args)
		}
	}
	return name + "(" + strings.Join(args[:last], ", ") + ")"
}

// argText quotes a request value only when it would be ambiguous bare.
func argText(s string) string {
	if s == "" || strings.ContainsAny(s, " ,()[]\"\\") || printable(s) != s {
		return strconv.Quote(s)
	}
	return s
}
