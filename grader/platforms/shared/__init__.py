"""What every platform's bundle carries and every platform's run needs: the course's files as its specs name
them (course_files), its environment's pinned list (environment_files), a folder written or refused (folder),
the grader's wheel (wheel), the image's set-up script that Gradescope and PrairieLearn both run (setup.sh),
and a results.json written whole (results). No platform of its own: the platforms stand on it."""
