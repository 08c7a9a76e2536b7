package tui

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/llm"
)

// imageExts are the extensions that make a pasted path an image reference;
// the file's content still decides whether it is one.
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// imageRef is one word of a prompt that names an image file.
type imageRef struct {
	word string // as typed, replaced by the image's placeholder
	path string
	at   bool // written as @path (else a pasted path)
}

// imageRefs finds the image references of a prompt: @path with an image
// extension, or a pasted path (absolute, ./, ../ or ~/, possibly quoted, as
// terminals paste dropped files) with one.
func imageRefs(prompt string) []imageRef {
	var refs []imageRef
	for _, word := range strings.Fields(prompt) {
		p, at := strings.CutPrefix(word, "@")
		p = strings.Trim(p, `'"`)
		if !imageExts[strings.ToLower(filepath.Ext(p))] {
			continue
		}
		if !at && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") && !strings.HasPrefix(p, "~/") {
			continue
		}
		refs = append(refs, imageRef{word: word, path: p, at: at})
	}
	return refs
}

// attachedMsg is a prompt whose image references have been loaded.
type attachedMsg struct {
	prompt string // with each reference replaced by its placeholder
	images []llm.Image
	failed []string // references that could not be attached, and why
	orig   string
}

// attach returns the command that loads a prompt's images, or nil when it
// names none (or the TUI was given no loader). Loading reads files, so it
// runs as a command, never inside Update.
func (m *model) attach(prompt string) tea.Cmd {
	refs := imageRefs(prompt)
	load := m.opts.LoadImage
	if len(refs) == 0 || load == nil {
		return nil
	}
	return func() tea.Msg {
		msg := attachedMsg{prompt: prompt, orig: prompt}
		for _, r := range refs {
			im, err := load(r.path)
			switch {
			case err == nil:
				msg.prompt = strings.Replace(msg.prompt, r.word, im.Placeholder(), 1)
				msg.images = append(msg.images, im)
			case !r.at && errors.Is(err, fs.ErrNotExist):
				// A path-like word that is not a file: plain text.
			default:
				msg.failed = append(msg.failed, r.path+": "+err.Error())
			}
		}
		return msg
	}
}

// handleAttached sends a prompt with its images, or, when an image the
// user named could not be attached (refused, not an image, too large),
// says why and gives the prompt back to edit.
func (m *model) handleAttached(msg attachedMsg) tea.Cmd {
	if len(msg.failed) > 0 {
		for _, f := range msg.failed {
			m.errorLine("Image not attached: " + f)
		}
		m.in.restore(msg.orig)
		m.layout()
		return nil
	}
	return m.sendWith(msg.prompt, msg.images)
}

// userText is a stored user message as the transcript shows it: its
// images as placeholders, unless the text already names them.
func userText(msg llm.Message) string {
	text := msg.Content
	for _, im := range msg.Images {
		if p := im.Placeholder(); !strings.Contains(text, p) {
			text = strings.TrimSpace(text + "\n" + p)
		}
	}
	return text
}
