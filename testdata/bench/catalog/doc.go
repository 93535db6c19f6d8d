// Package catalog is part of the bench fixture: records kept by the catalog service.
package catalog
