// Package accounts is part of the bench fixture: records kept by the accounts service.
package accounts
