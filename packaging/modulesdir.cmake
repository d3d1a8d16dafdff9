# Where the OpenSSL this build uses looks for provider modules (its MODULESDIR),
# so `cmake --install` puts mldsa-accel.so where that OpenSSL finds it.
# Included from the top-level CMakeLists.txt right after find_package(OpenSSL),
# before anything reads CMAKE_INSTALL_PREFIX or includes GNUInstallDirs.
#
# MLDSA_ACCEL_MODULESDIR (cache) overrides; absolute, or relative to the
# install prefix. Otherwise, in order: pkg-config's `modulesdir` of libcrypto
# (when that .pc describes the libcrypto found), `openssl version -m` of an
# openssl whose library is the version found, and OpenSSL's own default,
# <libdir of libcrypto>/ossl-modules. A detected folder under OpenSSL's prefix
# is kept relative to it, and an install prefix left at CMake's default becomes
# OpenSSL's prefix: `cmake --install build` lands in the MODULESDIR itself,
# `--prefix X` (or DESTDIR, or CPack) in the same layout below X.

set(MLDSA_ACCEL_MODULESDIR "" CACHE STRING
  "Folder for mldsa-accel.so: absolute, or relative to CMAKE_INSTALL_PREFIX (empty: the MODULESDIR of the OpenSSL built against)")

get_filename_component(_ossl_libdir "${OPENSSL_CRYPTO_LIBRARY}" DIRECTORY)
get_filename_component(_ossl_libdir "${_ossl_libdir}" REALPATH)
get_filename_component(_ossl_prefix "${OPENSSL_INCLUDE_DIR}" DIRECTORY)

set(_modulesdir "")
set(_modulesdir_from "")
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  foreach(var modulesdir libdir modversion)
    set(flag "--variable=${var}")
    if(var STREQUAL "modversion")
      set(flag "--modversion")
    endif()
    execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} ${flag} libcrypto
                    OUTPUT_VARIABLE _pc_${var} OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      set(_pc_${var} "")
    endif()
  endforeach()
  if(_pc_libdir)
    get_filename_component(_pc_libdir "${_pc_libdir}" REALPATH)
  endif()
  if(_pc_modulesdir AND _pc_libdir STREQUAL _ossl_libdir AND _pc_modversion VERSION_EQUAL OPENSSL_VERSION)
    set(_modulesdir "${_pc_modulesdir}")
    set(_modulesdir_from "pkg-config --variable=modulesdir libcrypto")
  endif()
endif()
if(NOT _modulesdir)
  find_program(MLDSA_ACCEL_OPENSSL_FOR_MODULESDIR openssl HINTS "${_ossl_prefix}/bin" NO_CACHE)
  if(MLDSA_ACCEL_OPENSSL_FOR_MODULESDIR)
    execute_process(COMMAND ${MLDSA_ACCEL_OPENSSL_FOR_MODULESDIR} version -v -m
                    OUTPUT_VARIABLE out ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND out MATCHES "Library: OpenSSL ([0-9.]+)" AND CMAKE_MATCH_1 VERSION_EQUAL OPENSSL_VERSION
       AND out MATCHES "MODULESDIR: \"([^\"]+)\"")
      set(_modulesdir "${CMAKE_MATCH_1}")
      set(_modulesdir_from "${MLDSA_ACCEL_OPENSSL_FOR_MODULESDIR} version -m")
    endif()
  endif()
endif()
if(NOT _modulesdir)
  set(_modulesdir "${_ossl_libdir}/ossl-modules")
  set(_modulesdir_from "OpenSSL's default, <libdir of ${OPENSSL_CRYPTO_LIBRARY}>/ossl-modules")
endif()

# The part of the detected folder below OpenSSL's prefix ("" when outside it).
set(_below_prefix "")
string(LENGTH "${_ossl_prefix}/" _len)
string(SUBSTRING "${_modulesdir}" 0 ${_len} _head)
if(_head STREQUAL "${_ossl_prefix}/")
  string(SUBSTRING "${_modulesdir}" ${_len} -1 _below_prefix)
endif()
if(CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT AND _below_prefix)
  set(CMAKE_INSTALL_PREFIX "${_ossl_prefix}" CACHE PATH "Install path prefix" FORCE)
endif()

if(MLDSA_ACCEL_MODULESDIR)
  set(MLDSA_ACCEL_INSTALL_MODULESDIR "${MLDSA_ACCEL_MODULESDIR}")
  set(_modulesdir_from "MLDSA_ACCEL_MODULESDIR")
elseif(_below_prefix)
  set(MLDSA_ACCEL_INSTALL_MODULESDIR "${_below_prefix}")
else()
  set(MLDSA_ACCEL_INSTALL_MODULESDIR "${_modulesdir}")
endif()
# What the build's own OpenSSL reports, for the message and the .pc file.
set(MLDSA_ACCEL_OPENSSL_MODULESDIR "${_modulesdir}")
if(IS_ABSOLUTE "${MLDSA_ACCEL_INSTALL_MODULESDIR}")
  set(_shown "${MLDSA_ACCEL_INSTALL_MODULESDIR}")
else()
  set(_shown "${CMAKE_INSTALL_PREFIX}/${MLDSA_ACCEL_INSTALL_MODULESDIR}")
endif()
message(STATUS "mldsa-accel.so installs to ${_shown} (from ${_modulesdir_from})")
if(NOT _shown STREQUAL _modulesdir)
  message(STATUS "  note: this OpenSSL loads modules from ${_modulesdir}; an install elsewhere needs "
                 "OPENSSL_MODULES or an absolute `module =` path (or -DCMAKE_INSTALL_PREFIX=${_ossl_prefix})")
endif()
