package sandbox

// Regime is how the kernel confines commands on this machine: what a
// program (harness9's doctor, a status bar) can promise its user.
type Regime int

// The regimes, from strongest to none.
const (
	// RegimeNone: no kernel sandbox (no Landlock, or an old one); commands
	// cannot be confined.
	RegimeNone Regime = iota
	// RegimeNamespaces: Landlock and seccomp, and each command in user,
	// PID, mount, IPC and network namespaces of its own with a fresh /proc.
	RegimeNamespaces
	// RegimeNoNamespaces: the kernel refuses user namespaces; Landlock and
	// seccomp (which refuses every socket but local ones when the network
	// is off), and a subreaper that ends what a command leaves behind.
	RegimeNoNamespaces
)

func (r Regime) String() string {
	switch r {
	case RegimeNamespaces:
		return "user namespaces"
	case RegimeNoNamespaces:
		return "no user namespaces"
	}
	return "no kernel sandbox"
}

// Guarantees says, for people, what the regime promises beyond the
// policies' file rules.
func (r Regime) Guarantees() string {
	switch r {
	case RegimeNamespaces:
		return "each command sees only its own processes (ps works; the harness is not visible), " +
			"has no network device (not even UDP leaves), cannot reach other programs' System V IPC, " +
			"and every process it starts ends with it; resource limits count its own processes"
	case RegimeNoNamespaces:
		return "without the network no IPv4/IPv6 socket can be created (seccomp), every process a command starts " +
			"is killed when it ends (subreaper), the harness cannot be read through /proc; but commands see every " +
			"process of the machine in /proc (read-only commands see none: no ps), System V IPC is shared, " +
			"and the process limit counts from what the machine runs (root: not enforced)"
	}
	return "commands are not confined by the kernel"
}
