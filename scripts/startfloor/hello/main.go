// Command hello is the start-up floor of any Go program (see startfloor).
package main

import "fmt"

func main() { fmt.Println("hello") }
