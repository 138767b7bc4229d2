;;; schedlint.el --- M-x compile reads schedlint's diagnostics  -*- lexical-binding: t -*-

;; Load it (or paste it into your init file), then M-x compile RET
;;   schedlint --color never --nodes cluster/nodes.yaml . RET
;; and next-error (M-g n) visits each diagnostic: errors as errors, warnings as warnings, notes
;; (the proof, related locations, notes about the input) as info.

;;; Code:

(require 'compile)

;; path:line:column: level: message; group 4 (warning) makes it a warning, group 5 (note) info,
;; neither an error.  Columns are 1-based, as compilation-first-column has them by default.
(add-to-list 'compilation-error-regexp-alist-alist
             '(schedlint
               "^\\([^:\n]+\\):\\([0-9]+\\):\\([0-9]+\\): \\(?:error\\|\\(warning\\)\\|\\(note\\)\\): "
               1 2 3 (4 . 5)))
(add-to-list 'compilation-error-regexp-alist 'schedlint)

(provide 'schedlint)
;;; schedlint.el ends here
