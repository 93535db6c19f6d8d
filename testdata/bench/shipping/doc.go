// Package shipping is part of the bench fixture: records kept by the shipping service.
package shipping
