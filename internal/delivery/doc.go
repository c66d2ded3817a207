// Package delivery holds the types shared by hookd's workflows, activities
// and API: the delivery request that is a workflow's input, the per-attempt
// timeline, final states, retry schedules, the deterministic delivery ID and
// the search attributes operators filter on.
//
// Nothing here does I/O or reads the clock, so workflows may import it.
package delivery
