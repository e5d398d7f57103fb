package tty

import "syscall"

const readTermios = syscall.TCGETS
