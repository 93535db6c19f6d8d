// Package inventory is part of the bench fixture: records kept by the inventory service.
package inventory
