"""Predicate pushdown: filters in pandas/pyarrow's DNF form, evaluated with three-valued logic against file,
stripe and row-group statistics and bloom filters, then exactly against the decoded rows."""
