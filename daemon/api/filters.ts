// The `filters` query parameter of list, prune and events endpoints, as routers hand it on.

/** Filter name to the values asked for (each value a match on its own). */
export type Filters = Map<string, string[]>;
