package apidocs

import "html/template"

// pageTemplate draws the reference: a table of contents, the document's
// introduction, each tag's operations, then the shared schemas. Styles are
// inline (the page is served with a CSP that allows no other source).
var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}} reference</title>
<style>
:root { color-scheme: light dark; --fg:#1b1f24; --muted:#59636e; --line:#d1d9e0; --bg:#fff; --code:#f6f8fa; --accent:#0969da; }
@media (prefers-color-scheme: dark) { :root { --fg:#e6edf3; --muted:#9198a1; --line:#3d444d; --bg:#0d1117; --code:#151b23; --accent:#4493f8; } }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 system-ui, sans-serif; color:var(--fg); background:var(--bg); }
a { color:var(--accent); }
.layout { display:flex; }
nav { width:260px; flex:none; position:sticky; top:0; height:100vh; overflow:auto; padding:16px; border-right:1px solid var(--line); font-size:14px; }
nav ul { list-style:none; padding-left:0; margin:4px 0 12px; }
nav li a { text-decoration:none; display:block; padding:1px 0; overflow-wrap:anywhere; }
main { flex:1; min-width:0; padding:16px 32px; max-width:1000px; }
code, pre { font-family: ui-monospace, monospace; font-size:13px; background:var(--code); border-radius:4px; }
code { padding:1px 4px; overflow-wrap:anywhere; }
pre { padding:8px; overflow:auto; }
table { border-collapse:collapse; margin:8px 0; width:100%; display:block; overflow-x:auto; }
th, td { border:1px solid var(--line); padding:4px 8px; text-align:left; vertical-align:top; }
td code { overflow-wrap:normal; white-space:nowrap; }
td > p:first-child { margin-top:0; } td > p:last-child { margin-bottom:0; }
.op { border:1px solid var(--line); border-radius:8px; padding:8px 16px; margin:16px 0; }
.op h3 { margin:4px 0; font-size:16px; overflow-wrap:anywhere; }
.method { display:inline-block; min-width:56px; font-weight:700; font-family:ui-monospace, monospace; }
.GET { color:#1a7f37; } .POST { color:#0969da; } .PUT { color:#9a6700; } .PATCH { color:#8250df; } .DELETE { color:#cf222e; }
.muted { color:var(--muted); font-size:13px; }
.req { color:#cf222e; font-size:12px; }
.props { margin-left:12px; }
@media (max-width: 720px) { .layout { display:block; } nav { position:static; width:auto; height:auto; border-right:0; border-bottom:1px solid var(--line); } main { padding:12px; } }
</style>
</head>
<body>
<div class="layout">
<nav aria-label="Contents">
<strong>{{.Title}}</strong> <span class="muted">{{.Version}}</span>
<ul><li><a href="#introduction">Introduction</a></li><li><a href="#authentication">Authentication</a></li></ul>
{{range .Tags}}<div>{{.Name}}</div><ul>{{range .Operations}}<li><a href="#{{.ID}}"><span class="method {{.Method}}">{{.Method}}</span> {{.Summary}}</a></li>{{end}}</ul>{{end}}
<details><summary>Schemas</summary><ul>{{range .Schemas}}<li><a href="#schema-{{.Name}}">{{.Name}}</a></li>{{end}}</ul></details>
</nav>
<main>
<h1 id="introduction">{{.Title}} <span class="muted">{{.Version}}</span></h1>
<p class="muted">The machine-readable document: <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
{{.Description}}
<h2 id="authentication">Authentication schemes</h2>
<table><tr><th>name</th><th>kind</th><th>description</th></tr>
{{range .Security}}<tr><td><code>{{.Name}}</code></td><td>{{.Kind}}</td><td>{{.Description}}</td></tr>{{end}}
</table>
{{range .Tags}}
<h2 id="tag-{{.Name}}">{{.Name}}</h2>
{{.Description}}
{{range .Operations}}
<section class="op" id="{{.ID}}">
<h3><span class="method {{.Method}}">{{.Method}}</span> <code>{{.Path}}</code></h3>
<p><strong>{{.Summary}}</strong> <span class="muted">operation <code>{{.ID}}</code> · credential: {{.Auth}}</span></p>
{{.Description}}
{{if .Params}}<h4>Parameters</h4>
<table><tr><th>name</th><th>in</th><th>type</th><th>description</th></tr>
{{range .Params}}<tr><td><code>{{.Name}}</code>{{if .Required}} <span class="req">required</span>{{end}}</td><td>{{.In}}</td><td><code>{{.Type}}</code></td><td>{{.Description}}</td></tr>{{end}}
</table>{{end}}
{{with .Body}}<h4>Request body <span class="muted">{{.ContentType}}{{if .Required}}, required{{end}}</span></h4>
{{.Description}}{{template "schema" .Schema}}{{end}}
<h4>Responses</h4>
<table><tr><th>status</th><th>description</th><th>body</th></tr>
{{range .Responses}}<tr><td><strong>{{.Status}}</strong></td><td>{{.Description}}</td><td>{{if .Schema}}{{template "schema" .Schema}} <span class="muted">{{.ContentType}}</span>{{end}}</td></tr>{{end}}
</table>
</section>
{{end}}
{{end}}
<h2 id="schemas">Schemas</h2>
{{range .Schemas}}<section class="op" id="schema-{{.Name}}"><h3>{{.Name}}</h3>{{template "schema" .Schema}}</section>{{end}}
</main>
</div>
</body>
</html>
{{define "schema"}}{{if .}}{{if .Ref}}<a href="#schema-{{.Ref}}"><code>{{.Ref}}</code></a>{{else}}<code>{{.Type}}</code>{{range .Notes}} <span class="muted">{{.}}</span>{{end}}{{.Description}}{{template "nested" .}}{{end}}{{end}}{{end}}
{{define "nested"}}{{if .Props}}<table><tr><th>field</th><th>type</th><th>description</th></tr>
{{range .Props}}<tr><td><code>{{.Name}}</code>{{if .Required}} <span class="req">required</span>{{end}}</td><td>{{template "schema-type" .Schema}}</td><td>{{.Schema.Description}}{{range .Schema.Notes}} <span class="muted">{{.}}</span>{{end}}{{if not .Schema.Ref}}{{template "nested" .Schema}}{{end}}</td></tr>{{end}}
</table>{{end}}{{with .Items}}{{if not .Ref}}{{template "nested" .}}{{end}}{{end}}{{if .Variants}}<div class="props">{{.VariantKind}}: {{range .Variants}}<div>{{template "schema" .}}</div>{{end}}</div>{{end}}{{end}}
{{define "schema-type"}}{{if .Ref}}<a href="#schema-{{.Ref}}"><code>{{.Ref}}</code></a>{{else if .Items}}{{if .Items.Ref}}<a href="#schema-{{.Items.Ref}}"><code>{{.Items.Ref}}[]</code></a>{{else}}<code>{{.Type}}</code>{{end}}{{else}}<code>{{.Type}}</code>{{end}}{{end}}
`))
