"""Signing in: logins, lockouts, the login budget, API tokens, who the user is."""
