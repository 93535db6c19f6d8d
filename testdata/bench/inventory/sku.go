package inventory

import "example.com/benchmod/core"

// ParseItemSKU parses the stock keeping unit of an item.
var ParseItemSKU = core.ParseSKU
