<?php
/*
 * Plugin Name: wp-harness
 * Description: Throwaway test instance: there is no MTA, so mail is dropped instead of failing in PHPMailer.
 */
add_filter( 'pre_wp_mail', '__return_false' );
