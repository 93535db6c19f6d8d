// Package billing is part of the bench fixture: records kept by the billing service.
package billing
