package tui

import (
	"charm.land/lipgloss/v2"

	"github.com/harness9/harness9/planning"
)

// Colours follow seed 002: the default accent is cyan (81); Plan Mode turns
// the accent amber (220 on a 94 bar, 208 for the mode label) so the user sees
// at a glance that the agent will not change files.
var (
	colAccent     = lipgloss.Color("81")
	colPlanAccent = lipgloss.Color("220")
	colPlanBar    = lipgloss.Color("94")
	colPlanLabel  = lipgloss.Color("208")
	colAutoEdit   = lipgloss.Color("177")
	colBar        = lipgloss.Color("236")
	colDim        = lipgloss.Color("244")
	colGreen      = lipgloss.Color("78")
	colYellow     = lipgloss.Color("220")
	colRed        = lipgloss.Color("203")
	colUser       = lipgloss.Color("252")
)

var (
	dimStyle     = lipgloss.NewStyle().Foreground(colDim)
	boldStyle    = lipgloss.NewStyle().Bold(true)
	errorStyle   = lipgloss.NewStyle().Foreground(colRed)
	warnStyle    = lipgloss.NewStyle().Foreground(colYellow).Bold(true)
	okStyle      = lipgloss.NewStyle().Foreground(colGreen)
	userStyle    = lipgloss.NewStyle().Foreground(colUser).Bold(true)
	diffAddStyle = lipgloss.NewStyle().Foreground(colGreen)
	diffDelStyle = lipgloss.NewStyle().Foreground(colRed)
	diffHunk     = lipgloss.NewStyle().Foreground(lipgloss.Color("75"))
)

// theme holds the mode-dependent styles. View code asks the theme instead of
// testing the mode itself (seed 002: accentStyle / activeStatusBarStyle).
type theme struct {
	accent    lipgloss.Style
	bar       lipgloss.Style
	modeLabel lipgloss.Style
	border    lipgloss.Style
}

func themeFor(m planning.Mode) theme {
	switch m {
	case planning.ModePlan:
		return theme{
			accent:    lipgloss.NewStyle().Foreground(colPlanAccent),
			bar:       lipgloss.NewStyle().Background(colPlanBar).Foreground(colPlanAccent),
			modeLabel: lipgloss.NewStyle().Background(colPlanBar).Foreground(colPlanLabel).Bold(true),
			border:    lipgloss.NewStyle().Foreground(colPlanAccent),
		}
	case planning.ModeAutoEdit:
		return theme{
			accent:    lipgloss.NewStyle().Foreground(colAccent),
			bar:       lipgloss.NewStyle().Background(colBar).Foreground(colAccent),
			modeLabel: lipgloss.NewStyle().Background(colBar).Foreground(colAutoEdit).Bold(true),
			border:    lipgloss.NewStyle().Foreground(colAutoEdit),
		}
	}
	return theme{
		accent:    lipgloss.NewStyle().Foreground(colAccent),
		bar:       lipgloss.NewStyle().Background(colBar).Foreground(colAccent),
		modeLabel: lipgloss.NewStyle().Background(colBar).Foreground(colAccent).Bold(true),
		border:    lipgloss.NewStyle().Foreground(colAccent),
	}
}

// modeLabel is the status bar's name for a mode.
func modeLabel(m planning.Mode) string {
	switch m {
	case planning.ModePlan:
		return "PLAN MODE"
	case planning.ModeAutoEdit:
		return "AUTO-EDIT (confirm edits)"
	}
	return "DEFAULT"
}
