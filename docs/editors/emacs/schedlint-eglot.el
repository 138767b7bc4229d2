;;; schedlint-eglot.el --- schedlint's language server for Eglot  -*- lexical-binding: t; -*-

;; Findings as you type (Flymake shows them) and the fixes as code actions (M-x eglot-code-actions).
;; Load this file or paste it into your init file; Eglot comes with Emacs 29 and later (before:
;; M-x package-install RET eglot). Then M-x eglot in a YAML buffer, or start it for every one:
;;   (add-hook 'yaml-mode-hook #'eglot-ensure)
;; Eglot runs one server per major mode, so this replaces the YAML language server in these modes.
;; The workspace is Emacs's project (the version-control root); the inventory comes from its
;; .schedlint.yaml. To name it here instead (paths relative to the project root), the entry is
;;   '((yaml-mode yaml-ts-mode)
;;     . ("schedlint" "lsp" :initializationOptions (:nodes ["cluster/nodes.yaml"])))

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '((yaml-mode yaml-ts-mode) . ("schedlint" "lsp"))))

(provide 'schedlint-eglot)
;;; schedlint-eglot.el ends here
