package api

// The API's request and answer bodies are the types of apiclient/wire,
// which oapi-codegen generates from openapi.yaml: each resource's file
// converts its store and domain values to them in one function.

// listOf is items as show shows each, never nil: a list answers [] for
// none.
func listOf[T, U any](items []T, show func(T) U) []U {
	out := make([]U, 0, len(items))
	for _, it := range items {
		out = append(out, show(it))
	}
	return out
}
