// Command benchapp wires the fixture's packages together.
package main

import (
	"fmt"

	"example.com/benchmod/accounts"
	"example.com/benchmod/billing"
	"example.com/benchmod/catalog"
	"example.com/benchmod/core"
	"example.com/benchmod/inventory"
	"example.com/benchmod/shipping"
)

func main() {
	store := core.NewMemStore()
	if x, err := inventory.NewItem("id-inventory", "first"); err != nil {
		fmt.Println(err)
	} else if err := x.Save(store); err != nil {
		fmt.Println(err)
	}
	if x, err := billing.NewInvoice("id-billing", "first"); err != nil {
		fmt.Println(err)
	} else if err := x.Save(store); err != nil {
		fmt.Println(err)
	}
	if x, err := shipping.NewParcel("id-shipping", "first"); err != nil {
		fmt.Println(err)
	} else if err := x.Save(store); err != nil {
		fmt.Println(err)
	}
	if x, err := catalog.NewProduct("id-catalog", "first"); err != nil {
		fmt.Println(err)
	} else if err := x.Save(store); err != nil {
		fmt.Println(err)
	}
	if x, err := accounts.NewCustomer("id-accounts", "first"); err != nil {
		fmt.Println(err)
	} else if err := x.Save(store); err != nil {
		fmt.Println(err)
	}
	if _, err := inventory.ParseItemSKU("ABC-123"); err != nil {
		fmt.Println(err)
	}
}
