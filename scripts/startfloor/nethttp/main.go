// Command nethttp is the start-up floor of a Go program that links
// net/http (see startfloor).
package main

import (
	"fmt"
	"net/http"
)

func main() { fmt.Println(http.StatusText(http.StatusOK)) }
