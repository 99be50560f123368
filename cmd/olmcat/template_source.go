package main

import "github.com/olmcat/olmcat/internal/source"

// renderTemplate renders a catalog template that a command reads as a catalog reference
// (validate, diff, graph, serve, ...). It is fbc/template's renderer; until that is wired in, a
// template is refused with an error that says so.
var renderTemplate source.TemplateRenderer
