"""Provider-side simulations: caching, context editing, compaction, stored responses."""
