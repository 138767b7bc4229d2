;;; schedlint-eglot.el --- schedlint's language server for Eglot  -*- lexical-binding: t; -*-

;; Findings as you type (Flymake shows them) and the fixes as code actions (M-x eglot-code-actions).
;; Eglot comes with Emacs 29 and later; on Emacs 28 install it (Debian: apt install elpa-eglot;
;; elsewhere M-x package-install RET eglot).
;; Eglot starts only in a buffer whose major mode it has a server for, and Emacs has no mode for
;; YAML of its own (29's yaml-ts-mode needs the tree-sitter grammar and is not used by default):
;; install yaml-mode (Debian: apt install elpa-yaml-mode; elsewhere M-x package-install RET
;; yaml-mode). Where none is installed, .yaml and .yml files open in schedlint-yaml-mode, a plain
;; mode defined below, instead of fundamental-mode, where Eglot would never start.
;; Load this file or paste it into your init file, then M-x eglot in a YAML buffer, or start it
;; for every one:
;;   (dolist (hook '(yaml-mode-hook yaml-ts-mode-hook schedlint-yaml-mode-hook))
;;     (add-hook hook #'eglot-ensure))
;; Eglot runs one server per major mode, so this replaces the YAML language server in these modes.
;; The workspace is Emacs's project (the version-control root); the inventory comes from its
;; .schedlint.yaml. To name it here instead (paths relative to the project root), the entry is
;;   '((yaml-mode yaml-ts-mode schedlint-yaml-mode)
;;     . ("schedlint" "lsp" :initializationOptions (:nodes ["cluster/nodes.yaml"])))

(define-derived-mode schedlint-yaml-mode prog-mode "YAML"
  "A plain mode for YAML files where no YAML mode is installed, for Eglot to start in."
  (setq-local comment-start "# ")
  (setq-local comment-start-skip "#+\\s-*"))

;; Appended: a YAML mode's own entry (yaml-mode's autoload) comes first and wins.
(add-to-list 'auto-mode-alist '("\\.ya?ml\\'" . schedlint-yaml-mode) t)

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '((yaml-mode yaml-ts-mode schedlint-yaml-mode) . ("schedlint" "lsp"))))

(provide 'schedlint-eglot)
;;; schedlint-eglot.el ends here
