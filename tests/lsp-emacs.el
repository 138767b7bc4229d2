;;; lsp-emacs.el --- a real client for `schedlint lsp': Eglot, in batch  -*- lexical-binding: t; -*-

;; tests/run-editors.sh runs it as `emacs --batch -Q -l lsp-emacs.el`, with SNIPPET naming
;; docs/editors/emacs/schedlint-eglot.el, WS the workspace (a git repository holding the seed's
;; manifest, its nodes and a .schedlint.yaml naming them) and `schedlint' first on PATH.
;; The packages installed for the whole system (Debian's elpa-eglot, elpa-yaml-mode) are
;; activated as an interactive start activates them, which -Q skips; with NO_YAML_MODE=1, all but
;; yaml-mode, as on a machine without it. Then the snippet is loaded, the manifest opened, Eglot
;; started as M-x eglot starts it, and what Flymake receives printed. With PROBE set, only
;; whether Eglot and yaml-mode are there (exit status 1 when not). Every line it prints starts
;; with "emacs: ".

(defun lsp-emacs-say (fmt &rest args)
  (princ (concat "emacs: " (apply #'format fmt args) "\n")))

(require 'package)
(setq package-directory-list
      (seq-filter #'file-directory-p
                  (list (expand-file-name "../site-lisp/elpa" data-directory)
                        (expand-file-name "../../site-lisp/elpa" data-directory))))
(when (member (getenv "NO_YAML_MODE") (list "1"))
  (setq package-load-list '((yaml-mode nil) all)))
(package-activate-all)
;; PROBE: only whether this Emacs has what the test needs.
(when (getenv "PROBE")
  (let ((missing (seq-remove (lambda (f) (require f nil t)) '(eglot yaml-mode))))
    (when missing
      (lsp-emacs-say "no %s" (mapconcat #'symbol-name missing " or ")))
    (kill-emacs (if missing 1 0))))
(load (getenv "SNIPPET") nil t)

(find-file (expand-file-name "manifest.yaml" (getenv "WS")))
(lsp-emacs-say "emacs %s, major mode %s" emacs-version major-mode)
(require 'eglot)
;; What M-x eglot does without a prefix argument: the server its mode is registered with.
(apply #'eglot (eglot--guess-contact))
(let ((server (eglot-current-server)))
  (lsp-emacs-say "server %s" (if server (mapconcat #'identity (process-command (jsonrpc--process server)) " ")
                               "none"))
  (flymake-start)
  (let ((deadline (+ (float-time) 60)))
    (while (and (null (flymake-diagnostics)) (< (float-time) deadline))
      (accept-process-output nil 0.1)))
  (let ((diags (flymake-diagnostics)))
    (lsp-emacs-say "%d diagnostics" (length diags))
    (dolist (d diags)
      (let ((beg (flymake-diagnostic-beg d)) (end (flymake-diagnostic-end d)))
        (lsp-emacs-say "%d:%d-%d:%d %s %s"
                       (line-number-at-pos beg) (save-excursion (goto-char beg) (1+ (current-column)))
                       (line-number-at-pos end) (save-excursion (goto-char end) (1+ (current-column)))
                       (flymake-diagnostic-type d)
                       (replace-regexp-in-string "\n" " " (flymake-diagnostic-text d))))))
  (when server
    (eglot-shutdown server)
    (lsp-emacs-say "server stopped: %s" (not (process-live-p (jsonrpc--process server))))))
(kill-emacs 0)
;;; lsp-emacs.el ends here
