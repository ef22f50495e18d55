package producer

import (
	"fmt"
	"strconv"
	"strings"
)

// Order is one line of the seeds' orders topic: "O-1 2x15000" is order O-1,
// quantity 2, unit price 15000.
type Order struct {
	ID        string
	Quantity  int64
	UnitPrice int64
}

// ParseOrder parses "ID QTYxPRICE".
func ParseOrder(line string) (Order, error) {
	id, spec, ok := strings.Cut(strings.TrimSpace(line), " ")
	if !ok || id == "" {
		return Order{}, fmt.Errorf("order %q: want \"ID QUANTITYxPRICE\"", line)
	}
	qty, price, ok := strings.Cut(strings.TrimSpace(spec), "x")
	if !ok {
		return Order{}, fmt.Errorf("order %q: want \"ID QUANTITYxPRICE\"", line)
	}
	q, err := strconv.ParseInt(qty, 10, 64)
	if err != nil || q < 0 {
		return Order{}, fmt.Errorf("order %q: quantity %q is not a whole number", line, qty)
	}
	p, err := strconv.ParseInt(price, 10, 64)
	if err != nil || p < 0 {
		return Order{}, fmt.Errorf("order %q: price %q is not a whole number", line, price)
	}
	return Order{ID: id, Quantity: q, UnitPrice: p}, nil
}

// Total is the processor's output line, "O-1 total=30000".
func (o Order) Total() string {
	return fmt.Sprintf("%s total=%d", o.ID, o.Quantity*o.UnitPrice)
}

// SeedOrders returns the three orders of seed 000, one value per line.
func SeedOrders() []string { return []string{"O-1 2x15000", "O-2 1x42000", "O-3 3x9000"} }
