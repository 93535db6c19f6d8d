package broken

import "fmt"

// Report prints a total with the wrong verb.
func Report(total int, who string) {
	fmt.Printf("%s owes %d\n", total, who)
}
