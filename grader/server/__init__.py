"""`grader serve`: a course's own place to submit. Students send a file over HTTP with a token, the server
stores it (fsynced) before it answers, grades it on local worker processes as `grader batch` does, and
keeps every submission, report and rule decision in a SQLite database under `--state DIR`.

state.py (the database and the stored files), tokens.py (who may submit), rules.py (deadlines, rate
limits, what hidden tests show, which submission counts), queue.py (the grading loop on worker processes),
views.py (a report as its reader may see it, the gradebook), roles.py and access.py (who may call what,
declared on each route), web.py (the web layer the routes stand on), the route modules (api_routes.py,
pages.py, review_routes.py, analytics_routes.py) and app.py, which assembles them."""
