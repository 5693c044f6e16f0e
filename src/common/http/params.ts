import { Injectable, Param, PipeTransform } from '@nestjs/common';
import { assertUuid } from './validation';

@Injectable()
class UuidPipe implements PipeTransform<string, string> {
  constructor(private readonly field: string) {}
  transform(value: string): string {
    return assertUuid(value, this.field);
  }
}

/** A UUID path parameter; a malformed value is 400 validation_error naming the parameter. */
export function UuidParam(name: string): ParameterDecorator {
  return Param(name, new UuidPipe(name));
}
