<?php
// A course for one run of the LTI test, made by Moodle's own data generators (those its PHPUnit tests use):
// the grader registered as an LTI 1.3 tool (deep linking, AGS with column management, NRPS, framed), a
// course, a teacher and two students. Prints what it made as JSON.
//   php course.php CONFIG_PHP TOOL_URL TAG PASSWORD
define('CLI_SCRIPT', true);
require($argv[1]);
require_once($CFG->dirroot . '/mod/lti/locallib.php');
require_once($CFG->libdir . '/testing/generator/lib.php');

[$tool, $tag, $password] = [$argv[2], $argv[3], $argv[4]];
\core\session\manager::set_user(get_admin());
$generator = new testing_data_generator();
$typeid = $generator->get_plugin_generator('mod_lti')->create_tool_types([
    'name' => "grader $tag",
    'baseurl' => "$tool/lti/launch",
    'state' => LTI_TOOL_STATE_CONFIGURED,
    'lti_ltiversion' => LTI_VERSION_1P3,
    'lti_keytype' => LTI_JWK_KEYSET,
    'lti_publickeyset' => "$tool/lti/jwks",
    'lti_initiatelogin' => "$tool/lti/login",
    'lti_redirectionuris' => "$tool/lti/launch",
    'lti_contentitem' => 1,
    'lti_toolurl_ContentItemSelectionRequest' => "$tool/lti/launch",
    'lti_coursevisible' => LTI_COURSEVISIBLE_ACTIVITYCHOOSER,
    'lti_launchcontainer' => LTI_LAUNCH_CONTAINER_EMBED_NO_BLOCKS,
    'lti_acceptgrades' => LTI_SETTING_ALWAYS,
    'lti_sendname' => LTI_SETTING_ALWAYS,
    'lti_sendemailaddr' => LTI_SETTING_ALWAYS,
    'ltiservice_gradesynchronization' => 2,
    'ltiservice_memberships' => 1,
]);
$course = $generator->create_course(['fullname' => "Programming $tag", 'shortname' => "prog-$tag"]);
$people = [];
foreach (['teacher' => 'editingteacher', 'student1' => 'student', 'student2' => 'student'] as $who => $role) {
    $user = $generator->create_user(['username' => "$who-$tag", 'password' => $password,
                                     'firstname' => ucfirst($who), 'lastname' => $tag,
                                     'email' => "$who-$tag@example.org"]);
    $generator->enrol_user($user->id, $course->id, $role);
    $people[$who] = ['id' => (int) $user->id, 'username' => $user->username, 'email' => $user->email];
}
echo json_encode([
    'typeid' => (int) $typeid,
    'clientid' => $DB->get_field('lti_types', 'clientid', ['id' => $typeid]),
    'course' => (int) $course->id,
    'people' => $people,
]);
