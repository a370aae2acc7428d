"""Where courses run, one package per platform, each holding its bundle, its run and its result format:

- gradescope/: the autograder zip, `grader gradescope-run`, results.json;
- prairielearn/: the external grader's image, `grader prairielearn-run`, results.json;
- github_classroom/: the template repository and its workflow, the reporter's result;
- canvas/, moodle/: the gradebook each imports (`grader batch --gradebook`);
- lti/: `grader serve` as an LTI 1.3 tool, for every LMS that speaks it (Moodle, Canvas...);
- student/: the bundle `grader export --student` writes, which GitHub Classroom's template holds too;
- shared/: what the bundles carry and the runs need (course files, environment, wheel, setup.sh).

A platform imports none of the others (student/ and shared/ below them all), and nothing the platforms
stand on imports them: pyproject.toml's import contracts."""

from grader.version import DISTRIBUTION

__all__ = ["DISTRIBUTION"]
