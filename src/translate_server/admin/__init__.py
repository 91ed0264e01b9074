"""The operator's API: accounts, keys, limits, usage and the audit trail (`/admin/...`)."""
